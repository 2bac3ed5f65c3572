// Command cfnschema-subset reduces the CloudFormation resource provider
// schemas that cfn-lint ships to what internal/cfnschema needs: for every
// resource type of the us-east-1 provider index, its top-level property
// names, createOnlyProperties and writeOnlyProperties. The full schemas are
// tens of megabytes; the subset is a few hundred kilobytes and says where
// it came from.
//
//	go run ./scripts/cfnschema-subset -cfnlint "$(python3 -c 'import cfnlint,os;print(os.path.dirname(cfnlint.__file__))')" \
//	    -version "$(python3 -c 'import cfnlint.version as v;print(v.__version__)')" \
//	    -out internal/cfnschema/properties.json
//
// cfn-lint is the pip package cfn-lint (Debian: python3-cfn-lint); it
// carries the provider schemas themselves, writeOnlyProperties included,
// which the AWS service spec database cdkd ships (db.json.gz) does not.
// The output is deterministic, one type per line, so a regeneration from
// the same cfn-lint gives no diff and a newer one a readable one.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// schema is the part of a provider schema the table keeps.
type schema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	CreateOnly []string                   `json:"createOnlyProperties"`
	WriteOnly  []string                   `json:"writeOnlyProperties"`
}

// entry is one type in the output.
type entry struct {
	Properties []string `json:"properties"`
	CreateOnly []string `json:"createOnlyProperties,omitempty"`
	WriteOnly  []string `json:"writeOnlyProperties,omitempty"`
}

func main() {
	dir := flag.String("cfnlint", "", "the cfnlint package directory")
	version := flag.String("version", "", "cfn-lint's version")
	out := flag.String("out", "internal/cfnschema/properties.json", "output file")
	flag.Parse()
	if *dir == "" || *version == "" {
		fmt.Fprintln(os.Stderr, "cfnschema-subset: -cfnlint and -version are required")
		os.Exit(2)
	}
	if err := run(*dir, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cfnschema-subset:", err)
		os.Exit(1)
	}
}

// indexEntry is one `"AWS::X::Y": "<hash>"` line of cfn-lint's provider
// index: the type and the file its schema is in.
var indexEntry = regexp.MustCompile(`"([A-Za-z0-9]+::[A-Za-z0-9]+::[A-Za-z0-9]+)": "([0-9a-f]+)"`)

func run(dir, version, out string) error {
	index, err := os.ReadFile(filepath.Join(dir, "data", "schemas", "providers", "us_east_1.py"))
	if err != nil {
		return fmt.Errorf("read cfn-lint's provider index: %w", err)
	}
	types := map[string]entry{}
	for _, m := range indexEntry.FindAllSubmatch(index, -1) {
		t := string(m[1])
		raw, err := os.ReadFile(filepath.Join(dir, "data", "schemas", "resources", string(m[2])+".json"))
		if err != nil {
			return fmt.Errorf("read schema of %s: %w", t, err)
		}
		var s schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("decode schema of %s: %w", t, err)
		}
		types[t] = entry{
			Properties: slices.Sorted(maps.Keys(s.Properties)),
			CreateOnly: clean(s.CreateOnly),
			WriteOnly:  clean(s.WriteOnly),
		}
	}
	if len(types) == 0 {
		return fmt.Errorf("no resource type in cfn-lint's us-east-1 index")
	}
	b, err := encode(version, types)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

// encode writes the table with one type per line.
func encode(version string, types map[string]entry) ([]byte, error) {
	var buf bytes.Buffer
	head := func(k, v string) error {
		b, err := json.Marshal(v)
		fmt.Fprintf(&buf, "  %q: %s,\n", k, b)
		return err
	}
	buf.WriteString("{\n")
	if err := head("source", "CloudFormation resource provider schemas (us-east-1) as shipped by cfn-lint, cfnlint/data/schemas"); err != nil {
		return nil, err
	}
	if err := head("version", "cfn-lint "+version); err != nil {
		return nil, err
	}
	if err := head("generator", "go run ./scripts/cfnschema-subset"); err != nil {
		return nil, err
	}
	buf.WriteString("  \"types\": {\n")
	names := slices.Sorted(maps.Keys(types))
	for i, t := range names {
		b, err := json.Marshal(types[t])
		if err != nil {
			return nil, err
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&buf, "    %q: %s%s\n", t, b, sep)
	}
	buf.WriteString("  }\n}\n")
	return buf.Bytes(), nil
}

// clean strips the "/properties/" prefix and sorts.
func clean(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		out = append(out, strings.TrimPrefix(p, "/properties/"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
