// Command scrutiny-subset reduces the AWS service spec database (the one
// aws-cdk's own `cdk diff` classifies security changes with) to what
// internal/security needs: for each resource type that is scrutinized,
// how (an identity or resource policy resource, a Lambda permission, a
// security group rule, an SSO item) and which of its properties hold a
// policy document, managed policy ARNs, inline policies or security group
// rules. The database is tens of megabytes; the subset is a few kilobytes
// and says where it came from.
//
//	go run ./scripts/scrutiny-subset -db ../shared/cdkd/db.json.gz -version "cdkd 0.284.40 (db.json.gz)" \
//	    -out internal/security/scrutinized.json
//
// The database is @aws-cdk/aws-service-spec's db.json.gz (cdkd ships a
// copy). The output is deterministic, so a regeneration from the same
// database gives no diff.
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// entity is the part of a resource entry the subset reads.
type entity struct {
	Type          string              `json:"cloudFormationType"`
	Scrutinizable string              `json:"scrutinizable"`
	Properties    map[string]property `json:"properties"`
}

type property struct {
	Scrutinizable string          `json:"scrutinizable"`
	Type          json.RawMessage `json:"type"`
}

// resource is one scrutinized type in the output.
type resource struct {
	// Kind is the database's resource-level classification ("" when only
	// some properties are scrutinized).
	Kind string `json:"kind,omitempty"`
	// Properties maps a property to its classification. For a policy
	// resource it lists the JSON properties named *Policy* that hold the
	// document.
	Properties map[string]string `json:"properties,omitempty"`
}

type output struct {
	Source    string              `json:"source"`
	Version   string              `json:"version"`
	Generator string              `json:"generator"`
	Types     map[string]resource `json:"types"`
}

// policyResources are the resource-level kinds whose document sits in a
// JSON property named *Policy*.
var policyResources = map[string]bool{"IdentityPolicyResource": true, "ResourcePolicyResource": true, "SsoPermissionSet": true}

func main() {
	db := flag.String("db", "", "the service spec database (db.json.gz)")
	version := flag.String("version", "", "where the database came from (\"cdkd 0.284.40\")")
	out := flag.String("out", "internal/security/scrutinized.json", "output file")
	flag.Parse()
	if *db == "" || *version == "" {
		fmt.Fprintln(os.Stderr, "scrutiny-subset: -db and -version are required")
		os.Exit(2)
	}
	if err := run(*db, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "scrutiny-subset:", err)
		os.Exit(1)
	}
}

func run(db, version, out string) error {
	f, err := os.Open(db)
	if err != nil {
		return fmt.Errorf("open the database: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("read the database: %w", err)
	}
	var doc struct {
		Schema struct {
			Resource struct {
				Entities []entity `json:"entities"`
			} `json:"resource"`
		} `json:"schema"`
	}
	if err := json.NewDecoder(io.Reader(zr)).Decode(&doc); err != nil {
		return fmt.Errorf("decode the database: %w", err)
	}
	o := output{
		Source:    "AWS service spec database (@aws-cdk/aws-service-spec db.json.gz, the one cdk diff uses): scrutinizable fields",
		Version:   version,
		Generator: "go run ./scripts/scrutiny-subset",
		Types:     map[string]resource{},
	}
	for _, e := range doc.Schema.Resource.Entities {
		r := resource{Properties: map[string]string{}}
		if e.Scrutinizable != "" && e.Scrutinizable != "None" {
			r.Kind = e.Scrutinizable
		}
		for name, p := range e.Properties {
			switch {
			case p.Scrutinizable != "" && p.Scrutinizable != "None":
				r.Properties[name] = p.Scrutinizable
			case policyResources[r.Kind] && strings.Contains(name, "Policy") && holdsJSON(p.Type):
				r.Properties[name] = "PolicyDocument"
			}
		}
		if r.Kind == "" && len(r.Properties) == 0 {
			continue
		}
		if len(r.Properties) == 0 {
			r.Properties = nil
		}
		if prev, dup := o.Types[e.Type]; dup && !equal(prev, r) {
			return fmt.Errorf("%s is in the database twice, classified differently", e.Type)
		}
		o.Types[e.Type] = r
	}
	if len(o.Types) == 0 {
		return fmt.Errorf("no scrutinizable type found: is %s the service spec database?", db)
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// holdsJSON reports a property type that is JSON or a union with JSON.
func holdsJSON(raw json.RawMessage) bool {
	var t struct {
		Type  string            `json:"type"`
		Types []json.RawMessage `json:"types"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return false
	}
	return t.Type == "json" || slices.ContainsFunc(t.Types, holdsJSON)
}

func equal(a, b resource) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
