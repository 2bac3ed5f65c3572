// Command openapi-subset vendors the part of GitHub's OpenAPI description that
// cdkd-action calls, so the fake GitHub in internal/github/githubtest can
// validate every request against GitHub's own schemas without shipping the
// 13 MB original.
//
// It downloads the pinned @octokit/openapi package with `npm pack` (or reads a
// local copy given with -in), verifies the tarball against the pinned npm
// integrity, keeps only the operations listed in [operations] together with
// every component they reference (transitively), and writes one
// self-contained JSON document plus the package's LICENSE and a README.md
// next to it.
//
//	go run ./scripts/openapi-subset -out internal/github/githubtest/openapi/api.github.com.subset.json
//
// The output is deterministic (keys sorted, numbers kept verbatim), so a
// regeneration with the same pin produces no diff.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The pinned source. Bump all three together; the integrity is what
// `npm view @octokit/openapi@<version> dist.integrity` prints.
const (
	pkgName      = "@octokit/openapi"
	pkgVersion   = "23.0.2"
	pkgIntegrity = "sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg=="

	specMember    = "package/generated/api.github.com.json"
	licenseMember = "package/LICENSE"
)

// operations is every call cdkd-action makes, as path → methods. Keep it in
// step with the operation IDs served by internal/github/githubtest.
var operations = map[string][]string{
	"/user": {"get"},
	"/repos/{owner}/{repo}/issues/{issue_number}/comments":       {"get", "post"},
	"/repos/{owner}/{repo}/issues/{issue_number}/events":         {"get"},
	"/repos/{owner}/{repo}/issues/comments/{comment_id}":         {"patch", "delete"},
	"/repos/{owner}/{repo}/check-runs":                           {"post"},
	"/repos/{owner}/{repo}/check-runs/{check_run_id}":            {"patch"},
	"/repos/{owner}/{repo}/commits/{ref}/check-runs":             {"get"},
	"/repos/{owner}/{repo}/pulls":                                {"get"},
	"/repos/{owner}/{repo}/pulls/{pull_number}":                  {"get"},
	"/repos/{owner}/{repo}/pulls/{pull_number}/reviews":          {"get"},
	"/repos/{owner}/{repo}/commits/{commit_sha}/pulls":           {"get"},
	"/repos/{owner}/{repo}/compare/{basehead}":                   {"get"},
	"/repos/{owner}/{repo}/git/matching-refs/{ref}":              {"get"},
	"/repos/{owner}/{repo}/issues":                               {"get", "post"},
	"/repos/{owner}/{repo}/issues/{issue_number}":                {"patch"},
	"/repos/{owner}/{repo}/deployments":                          {"post"},
	"/repos/{owner}/{repo}/deployments/{deployment_id}/statuses": {"post"},
	"/repos/{owner}/{repo}/collaborators/{username}/permission":  {"get"},
	"/repos/{owner}/{repo}/activity":                             {"get"},
	"/repos/{owner}/{repo}/issues/{issue_number}/timeline":       {"get"},
}

// droppedKeys are removed from every object that is not a map of property
// names. Examples are large, never used for validation, and some of GitHub's
// do not match their own schemas, which kin-openapi's document validation
// rejects (it validates examples by default).
var droppedKeys = map[string]bool{"example": true, "examples": true}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-subset:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("openapi-subset", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "where to write the subset JSON (README.md and LICENSE are written beside it)")
	in := fs.String("in", "", "a local "+pkgName+" tarball (.tgz, integrity-checked) or generated/api.github.com.json; default: npm pack "+pkgName+"@"+pkgVersion)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errors.New("-out is required")
	}

	spec, license, err := load(ctx, *in)
	if err != nil {
		return err
	}
	subset, err := extract(spec)
	if err != nil {
		return err
	}
	encoded, err := encode(subset)
	if err != nil {
		return fmt.Errorf("encode subset: %w", err)
	}
	dir := filepath.Dir(*out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.WriteFile(*out, encoded, 0o644); err != nil {
		return fmt.Errorf("write subset: %w", err)
	}
	if license != nil {
		if err := os.WriteFile(filepath.Join(dir, "LICENSE"), license, 0o644); err != nil {
			return fmt.Errorf("write LICENSE: %w", err)
		}
	} else {
		fmt.Fprintln(stderr, "openapi-subset: input has no LICENSE; left", filepath.Join(dir, "LICENSE"), "as it is")
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme(filepath.Base(*out))), 0o644); err != nil {
		return fmt.Errorf("write README.md: %w", err)
	}
	fmt.Fprintf(stderr, "openapi-subset: wrote %s (%d bytes)\n", *out, len(encoded))
	return nil
}

// load returns the decoded full description and the package's LICENSE text
// (nil when reading a bare JSON file).
func load(ctx context.Context, in string) (map[string]any, []byte, error) {
	var tgz []byte
	switch {
	case in == "":
		b, err := npmPack(ctx)
		if err != nil {
			return nil, nil, err
		}
		tgz = b
	case strings.HasSuffix(in, ".tgz") || strings.HasSuffix(in, ".tar.gz"):
		b, err := os.ReadFile(in)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", in, err)
		}
		tgz = b
	default:
		b, err := os.ReadFile(in)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", in, err)
		}
		spec, err := decode(b)
		if err != nil {
			return nil, nil, fmt.Errorf("decode %s: %w", in, err)
		}
		return spec, nil, nil
	}

	if err := verifyIntegrity(tgz); err != nil {
		return nil, nil, err
	}
	members, err := untar(tgz, specMember, licenseMember)
	if err != nil {
		return nil, nil, err
	}
	spec, err := decode(members[specMember])
	if err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", specMember, err)
	}
	return spec, members[licenseMember], nil
}

// npmPack downloads the pinned tarball into a temporary directory with the
// ordinary npm client (which honours the user's registry configuration).
func npmPack(ctx context.Context) ([]byte, error) {
	dir, err := os.MkdirTemp("", "openapi-subset-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, "npm", "pack", pkgName+"@"+pkgVersion, "--pack-destination", dir, "--silent")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm pack %s@%s: %w: %s", pkgName, pkgVersion, err, strings.TrimSpace(stderr.String()))
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if err != nil || len(matches) != 1 {
		return nil, fmt.Errorf("npm pack %s@%s: expected one tarball in %s, found %v", pkgName, pkgVersion, dir, matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		return nil, fmt.Errorf("read tarball: %w", err)
	}
	return b, nil
}

func verifyIntegrity(tgz []byte) error {
	sum := sha512.Sum512(tgz)
	got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if got != pkgIntegrity {
		return fmt.Errorf("tarball integrity %s does not match pinned %s@%s integrity %s", got, pkgName, pkgVersion, pkgIntegrity)
	}
	return nil
}

func untar(tgz []byte, names ...string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("open tarball: %w", err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	found := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read tarball: %w", err)
		}
		if !want[h.Name] {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("read %s from tarball: %w", h.Name, err)
		}
		found[h.Name] = b
	}
	for _, n := range names {
		if found[n] == nil {
			return nil, fmt.Errorf("tarball has no %s", n)
		}
	}
	return found, nil
}

func decode(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep 65535 as 65535, not 65535.0 or 6.5535e+04
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// extract builds the self-contained subset document.
func extract(spec map[string]any) (map[string]any, error) {
	allPaths, ok := spec["paths"].(map[string]any)
	if !ok {
		return nil, errors.New("description has no paths")
	}
	components, _ := spec["components"].(map[string]any)

	paths := map[string]any{}
	for _, path := range sortedKeys(operations) {
		item, ok := allPaths[path].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("description has no path %s", path)
		}
		kept := map[string]any{}
		// Path-level fields (shared parameters, servers) apply to every
		// operation, so they are kept; the other methods are not.
		for k, v := range item {
			if !isMethod(k) {
				kept[k] = prune(v, "")
			}
		}
		for _, m := range operations[path] {
			op, ok := item[m]
			if !ok {
				return nil, fmt.Errorf("description has no %s %s", strings.ToUpper(m), path)
			}
			kept[m] = prune(op, "")
		}
		paths[path] = kept
	}

	// Copy referenced components until no new reference turns up.
	outComponents := map[string]any{}
	queue := refs(paths, nil)
	seen := map[string]bool{}
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		kind, name, err := splitRef(ref)
		if err != nil {
			return nil, err
		}
		group, _ := components[kind].(map[string]any)
		c, ok := group[name]
		if !ok {
			return nil, fmt.Errorf("unresolved reference %s", ref)
		}
		c = prune(c, "")
		dst, _ := outComponents[kind].(map[string]any)
		if dst == nil {
			dst = map[string]any{}
			outComponents[kind] = dst
		}
		dst[name] = c
		queue = refs(c, queue)
	}

	info, _ := spec["info"].(map[string]any)
	outInfo := map[string]any{}
	for k, v := range info {
		outInfo[k] = v
	}
	outInfo["description"] = fmt.Sprintf("Subset of generated/api.github.com.json from the npm package %s@%s "+
		"(the operations cdkd-action calls and the components they reference; examples removed). "+
		"Generated by scripts/openapi-subset; do not edit.", pkgName, pkgVersion)

	out := map[string]any{
		"openapi":    spec["openapi"],
		"info":       outInfo,
		"paths":      paths,
		"components": outComponents,
	}
	if s, ok := spec["servers"]; ok {
		out["servers"] = s
	}
	return out, nil
}

func isMethod(k string) bool {
	switch k {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

// prune drops [droppedKeys] except where the object's keys are property
// names (a property may well be called "example").
func prune(v any, parentKey string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, child := range x {
			if droppedKeys[k] && parentKey != "properties" {
				continue
			}
			out[k] = prune(child, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, child := range x {
			out[i] = prune(child, parentKey)
		}
		return out
	default:
		return v
	}
}

// refs appends every $ref found in v to acc.
func refs(v any, acc []string) []string {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if k == "$ref" {
				if s, ok := x[k].(string); ok {
					acc = append(acc, s)
				}
				continue
			}
			acc = refs(x[k], acc)
		}
	case []any:
		for _, child := range x {
			acc = refs(child, acc)
		}
	}
	return acc
}

// splitRef turns "#/components/schemas/issue" into ("schemas", "issue").
func splitRef(ref string) (string, string, error) {
	parts := strings.Split(ref, "/")
	if len(parts) != 4 || parts[0] != "#" || parts[1] != "components" {
		return "", "", fmt.Errorf("unsupported reference %q (only local #/components/<kind>/<name>)", ref)
	}
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	return parts[2], unescape.Replace(parts[3]), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func encode(doc map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func readme(file string) string {
	var ops []string
	for _, path := range sortedKeys(operations) {
		for _, m := range operations[path] {
			ops = append(ops, fmt.Sprintf("- `%s %s`", strings.ToUpper(m), path))
		}
	}
	return fmt.Sprintf(`# Vendored GitHub OpenAPI subset

`+"`%[1]s`"+` is the part of GitHub's REST API description that cdkd-action
calls. `+"`githubtest`"+` (the fake GitHub used by the tests) embeds it and
validates every request it receives against it with kin-openapi.

- Source: npm package `+"`%[2]s`"+` version `+"`%[3]s`"+`, file
  `+"`generated/api.github.com.json`"+` (GitHub's own description from
  github/rest-api-description, with Octokit's extensions).
- Tarball integrity (checked by the generator): `+"`%[4]s`"+`
- Licence: MIT, see `+"`LICENSE`"+` in this directory (copied from the package).

Regenerate (needs npm and access to the npm registry; bump the pin in
`+"`scripts/openapi-subset/main.go`"+` first to move to a newer description):

`+"```sh"+`
go run ./scripts/openapi-subset -out internal/github/githubtest/openapi/%[1]s
`+"```"+`

or, from an already downloaded tarball or JSON file:

`+"```sh"+`
go run ./scripts/openapi-subset -in octokit-openapi-%[3]s.tgz -out internal/github/githubtest/openapi/%[1]s
`+"```"+`

What the generator changes: it keeps only the operations below (and the
path-level fields of their paths), copies every component they reference,
transitively, and removes all `+"`example`/`examples`"+` members. Examples are
not used for request validation and are over a third of the size; more to the
point, kin-openapi validates them when it validates the document, and some of
GitHub's do not match their own schemas: with %[2]s@%[3]s, the example
response of `+"`GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls`"+` lacks
the required `+"`type`"+` of a team, so the subset with examples fails
`+"`doc.Validate`"+` (so does the full description). Nothing else is
rewritten; the subset loads and validates with kin-openapi as it is. Do not
edit the JSON by hand.

Operations:

%[5]s
`, file, pkgName, pkgVersion, pkgIntegrity, strings.Join(ops, "\n"))
}
