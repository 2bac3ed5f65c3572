package docscheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The repository keeps its documentation's promises: every relative link
// of README.md and docs/ resolves, and docs/inputs.md names every input
// and output of action.yml. .ci/run runs the same check
// (scripts/checkdocs).
func TestRepositoryDocs(t *testing.T) {
	problems, err := Check("../..")
	assert.NilError(t, err)
	for _, p := range problems {
		t.Error(p)
	}
}

func TestSlugIsGitHubs(t *testing.T) {
	for heading, want := range map[string]string{
		"Merge queues: the group is checked before it merges": "merge-queues-the-group-is-checked-before-it-merges",
		"A saved `cdkd drift --json` and cdkd's exit code":    "a-saved-cdkd-drift---json-and-cdkds-exit-code",
		"Gated deploys on merge: `command: deploy`":           "gated-deploys-on-merge-command-deploy",
		"`role-arn`: a second role":                           "role-arn-a-second-role",
		"1. Diff on pull requests":                            "1-diff-on-pull-requests",
		"What the **local** command [shows](x.md)":            "what-the-local-command-shows",
		"Secrets Manager & SSM — fetch_once":                  "secrets-manager--ssm--fetch_once",
	} {
		assert.Equal(t, Slug(heading), want, heading)
	}
}

func TestAnchorsNumberRepeatsAndSkipCode(t *testing.T) {
	a := Anchors("# Inputs\n## Outputs\n```sh\n# not a heading\n```\n## Outputs\n<a id=\"here\"></a>\n")
	assert.DeepEqual(t, a, map[string]bool{"inputs": true, "outputs": true, "outputs-1": true, "here": true})
}

// A broken file, a heading that is not there, a link out of the
// repository: each is found, with its line; links in code, other sites
// and good links are not.
func TestLinksFindsWhatDoesNotResolve(t *testing.T) {
	root := t.TempDir()
	write := func(p, text string) { t.Helper(); writeFile(t, root, p, text) }
	write("internal/x/table.json", "{}")
	write("README.md", "# Top\n[ok](docs/a.md#the-part) ![img](docs/a.md)\n[self](#top) [bad self](#nowhere)\n")
	write("docs/a.md", strings.Join([]string{
		"# A",
		"## The part",
		"[root-relative](/README.md#top), [up](../internal/x/table.json), [site](https://example.com/x.md)",
		"[broken](internal/x/table.json)",
		"[no heading](../README.md#missing) `[in code](nothing.md)`",
		"```md",
		"[in a block](nothing.md)",
		"```",
		"[out](../../elsewhere.md)",
		"[ref]: b.md",
	}, "\n"))
	docs, err := Documents(root)
	assert.NilError(t, err)
	assert.DeepEqual(t, docs, []string{"README.md", "docs/a.md"})
	problems, err := Links(root, docs)
	assert.NilError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	assert.DeepEqual(t, got, []string{
		"README.md:3: link #nowhere: README.md has no heading #nowhere",
		"docs/a.md:4: link internal/x/table.json: docs/internal/x/table.json does not exist",
		"docs/a.md:5: link ../README.md#missing: README.md has no heading #missing",
		"docs/a.md:9: link ../../elsewhere.md: leaves the repository",
		"docs/a.md:10: link b.md: docs/b.md does not exist",
	})
}

func TestInputsNamedFindsAMissingInputAndOutput(t *testing.T) {
	root := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "action.yml"), []byte("inputs:\n  app: {}\n  base-app: {}\noutputs:\n  digest: {}\n  matrix: {}\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(root, "docs/inputs.md"), []byte("| `app` | |\n| `matrix` | |\nbase-app without code\n"), 0o644))
	problems, err := InputsNamed(root)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(problems, 2))
	assert.Equal(t, problems[0].String(), "docs/inputs.md: does not name the input `base-app` that action.yml declares")
	assert.Equal(t, problems[1].String(), "docs/inputs.md: does not name the output `digest` that action.yml declares")
}

// The package layout names every package, found as `go list` finds them:
// a package left out, or one named by its last element only, is a
// problem; test data, node_modules and a nested module are not packages.
func TestPackagesNamed(t *testing.T) {
	root := t.TempDir()
	write := func(p, text string) { t.Helper(); writeFile(t, root, p, text) }
	write("go.mod", "module example.com/m\n")
	write("root.go", "package rootpkg\n")
	write("internal/a/a.go", "package a\n")
	write("internal/a/b/b.go", "package b\n")
	write("internal/onlytests/x_test.go", "package onlytests\n")
	write("internal/a/testdata/t.go", "package t\n")
	write("tools/go.mod", "module example.com/tools\n")
	write("tools/x/x.go", "package x\n")
	write("node_modules/y/y.go", "package y\n")

	pkgs, err := Packages(root)
	assert.NilError(t, err)
	assert.DeepEqual(t, pkgs, []string{"rootpkg", "internal/a", "internal/a/b"})

	write("docs/architecture.md", "# How\n## Package layout\n- `rootpkg`, `internal/a`, and `b`.\n## Develop\n`internal/a/b`\n")
	problems, err := PackagesNamed(root)
	assert.NilError(t, err)
	assert.Equal(t, len(problems), 1, "%v", problems)
	assert.Assert(t, is.Contains(problems[0].String(), "does not name the package `internal/a/b`"))

	write("docs/architecture.md", "# How\n## Package layout\n- `rootpkg`, `internal/a`, `internal/a/b`.\n")
	problems, err = PackagesNamed(root)
	assert.NilError(t, err)
	assert.Equal(t, len(problems), 0, "%v", problems)
}

// writeFile writes text to p under root, making its folders.
func writeFile(t *testing.T, root, p, text string) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(root, p), []byte(text), 0o644))
}

// README's picture is stale when its run command prints another output
// than the one it was rendered from, whose hash is recorded beside it.
func TestPictureFollowsTheRunCommand(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "README.md", "# x\n\n<!-- run-command -->\n```sh\ngo run ./cmd/x --local\n```\n")
	line, err := RunCommand(root)
	assert.NilError(t, err)
	assert.Equal(t, line, "go run ./cmd/x --local")

	problems, err := Picture(root, []byte("report\n"))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(problems, 1))
	assert.Assert(t, is.Contains(problems[0].String(), "docs/images/pr-comment.png.sha256: missing"))

	// sha256 of "report\n"
	writeFile(t, root, PictureHashFile, "331d26d6d8f862e46ba900811be8a7a1e4dbaa229b14c99becfd5e5151490d95\n")
	problems, err = Picture(root, []byte("report\n"))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(problems, 0))
	problems, err = Picture(root, []byte("another report\n"))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(problems, 1))
	assert.Assert(t, is.Contains(problems[0].String(), "docs/images/pr-comment.png shows another output of README's run command than it prints today (recorded sha256 331d26d6d8f8"))
	assert.Assert(t, is.Contains(problems[0].String(), "regenerate it with scripts/readme-picture/render.sh"))
}

// The repository's picture was rendered from what its run command prints
// today: scripts/checkdocs runs the command; this checks the recorded hash
// is one (the run command's own output is checked by checkdocs).
func TestRepositoryPictureHashIsRecorded(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("../..", PictureHashFile))
	assert.NilError(t, err)
	assert.Assert(t, is.Len(strings.TrimSpace(string(b)), 64))
}

// docs/inputs.md's table of inputs has a row per input, each with
// action.yml's default.
func TestInputDefaultsFollowActionYAML(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "action.yml", "inputs:\n  all:\n    default: 'false'\n  stacks:\n    description: x\n  label:\n    default: ''\n")
	writeFile(t, root, "docs/inputs.md", "| input | type | required | default | what it does |\n|---|---|---|---|---|\n"+
		"| `all` | boolean | no | `true` | every stack |\n| `stacks` | list | no |  | the stacks |\n| `nope` | string | no |  | gone |\n\nafter\n")
	problems, err := InputDefaults(root)
	assert.NilError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	assert.DeepEqual(t, got, []string{
		"docs/inputs.md:3: the default of `all` is \"`true`\" here but \"`false`\" in action.yml",
		"docs/inputs.md:5: the inputs table names `nope`, which action.yml does not declare",
		"docs/inputs.md: the inputs table (| input | type | required | default | what it does |) has no row for `label`",
	})
}
