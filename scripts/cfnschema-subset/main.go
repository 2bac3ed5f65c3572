// Command cfnschema-subset reduces the CloudFormation resource provider
// schemas that cfn-lint ships to what internal/cfnschema needs: for each
// resource type that can hold a secret, its createOnlyProperties and
// writeOnlyProperties. The full schemas are tens of megabytes; the subset is
// a few kilobytes and says where it came from.
//
//	go run ./scripts/cfnschema-subset -cfnlint "$(python3 -c 'import cfnlint,os;print(os.path.dirname(cfnlint.__file__))')" \
//	    -version "$(python3 -c 'import cfnlint.version as v;print(v.__version__)')" \
//	    -out internal/cfnschema/properties.json
//
// cfn-lint is the pip package cfn-lint (Debian: python3-cfn-lint). The
// schemas are read from its us-east-1 provider index. The output is
// deterministic, so a regeneration from the same cfn-lint gives no diff.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// types are the resource types whose properties commonly take a NoEcho
// parameter or a secret reference. Add a type here and regenerate.
var types = []string{
	"AWS::AmazonMQ::Broker",
	"AWS::DMS::Endpoint",
	"AWS::DirectoryService::MicrosoftAD",
	"AWS::DirectoryService::SimpleAD",
	"AWS::DocDB::DBCluster",
	"AWS::DocDB::DBInstance",
	"AWS::ECS::TaskDefinition",
	"AWS::ElastiCache::CacheCluster",
	"AWS::ElastiCache::ReplicationGroup",
	"AWS::ElastiCache::User",
	"AWS::IAM::User",
	"AWS::Lambda::Function",
	"AWS::Neptune::DBCluster",
	"AWS::OpenSearchService::Domain",
	"AWS::RDS::DBCluster",
	"AWS::RDS::DBInstance",
	"AWS::RDS::DBProxy",
	"AWS::Redshift::Cluster",
	"AWS::RedshiftServerless::Namespace",
	"AWS::SSM::Parameter",
	"AWS::SecretsManager::Secret",
}

type schema struct {
	CreateOnly []string `json:"createOnlyProperties"`
	WriteOnly  []string `json:"writeOnlyProperties"`
}

type output struct {
	Source    string            `json:"source"`
	Version   string            `json:"version"`
	Generator string            `json:"generator"`
	Types     map[string]schema `json:"types"`
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

func run(dir, version, out string) error {
	index, err := os.ReadFile(filepath.Join(dir, "data", "schemas", "providers", "us_east_1.py"))
	if err != nil {
		return fmt.Errorf("read cfn-lint's provider index: %w", err)
	}
	o := output{
		Source:    "CloudFormation resource provider schemas (us-east-1) as shipped by cfn-lint, cfnlint/data/schemas",
		Version:   "cfn-lint " + version,
		Generator: "go run ./scripts/cfnschema-subset",
		Types:     map[string]schema{},
	}
	for _, t := range types {
		m := regexp.MustCompile(`"` + regexp.QuoteMeta(t) + `": "([0-9a-f]+)"`).FindSubmatch(index)
		if m == nil {
			return fmt.Errorf("%s is not in cfn-lint's us-east-1 index", t)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "data", "schemas", "resources", string(m[1])+".json"))
		if err != nil {
			return fmt.Errorf("read schema of %s: %w", t, err)
		}
		var s schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("decode schema of %s: %w", t, err)
		}
		s.CreateOnly, s.WriteOnly = clean(s.CreateOnly), clean(s.WriteOnly)
		o.Types[t] = s
	}
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
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
