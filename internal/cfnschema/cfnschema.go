// Package cfnschema answers, from CloudFormation's own resource schemas,
// the two questions that decide what a deploy does with a new secret value:
// is the property create-only (changing it replaces the resource), and is
// it write-only (AWS never reports its current value)?
//
// properties.json is a reduced copy of the schemas cfn-lint ships, for
// every resource type of the us-east-1 provider index (its source and
// version are in the file; regenerate it with scripts/cfnschema-subset). A
// type or a property it does not list is unknown: no claim is made about
// it (cdkd decides when it reads AWS).
package cfnschema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

//go:embed properties.json
var propertiesJSON []byte

// Behavior is what the schema says about one property path.
type Behavior struct {
	// CreateOnly: changing the property replaces the resource.
	CreateOnly bool
	// WriteOnly: AWS never reports the property's value.
	WriteOnly bool
	// Known is false when the type, or the property's top-level name, is
	// not in the table: CreateOnly and WriteOnly then say nothing.
	Known bool
}

// Types counts the resource types the table knows.
func (t *Table) Types() int { return len(t.types) }

// Table is the reduced schema data.
type Table struct {
	// Source and Version say where the data came from.
	Source  string
	Version string
	types   map[string]typeProps
}

type typeProps struct {
	Properties []string `json:"properties"`
	CreateOnly []string `json:"createOnlyProperties"`
	WriteOnly  []string `json:"writeOnlyProperties"`
}

var (
	loadOnce  sync.Once
	loaded    *Table
	loadError error
)

// Load parses the embedded table, once per process.
func Load() (*Table, error) {
	loadOnce.Do(func() { loaded, loadError = load() })
	return loaded, loadError
}

func load() (*Table, error) {
	var w struct {
		Source  string               `json:"source"`
		Version string               `json:"version"`
		Types   map[string]typeProps `json:"types"`
	}
	if err := json.Unmarshal(propertiesJSON, &w); err != nil {
		return nil, fmt.Errorf("decode the embedded CloudFormation schema table: %w", err)
	}
	return &Table{Source: w.Source, Version: w.Version, types: w.Types}, nil
}

// Lookup returns what the schema says about a property path as cdkd prints
// it ("Environment.Variables.DB_PASSWORD", "ContainerDefinitions.0.Secrets").
// A schema entry covers the path when it is the path or one of its
// ancestors; "*" in a schema entry matches any list index.
func (t *Table) Lookup(resourceType, path string) Behavior {
	p, ok := t.types[resourceType]
	segs := strings.Split(path, ".")
	if !ok {
		return Behavior{}
	}
	if _, found := slices.BinarySearch(p.Properties, segs[0]); !found {
		return Behavior{}
	}
	return Behavior{Known: true, CreateOnly: covers(p.CreateOnly, segs), WriteOnly: covers(p.WriteOnly, segs)}
}

func covers(entries []string, path []string) bool {
	for _, e := range entries {
		es := strings.Split(e, "/")
		if len(es) > len(path) {
			continue
		}
		match := true
		for i, s := range es {
			if s != "*" && s != path[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// IsCustomResource reports a custom resource: cdkd cannot read one back,
// so its handler runs on every deploy that passes it a secret.
func IsCustomResource(resourceType string) bool {
	return resourceType == "AWS::CloudFormation::CustomResource" || strings.HasPrefix(resourceType, "Custom::")
}

// statefulServices are the services whose resources cdkd refuses to
// recreate without --force-stateful-recreation (cdkd 0.284.40's deploy
// help: RDS, DynamoDB, EFS, FSx, EBS volumes, S3, Logs, Cognito, Secrets
// Manager, SSM, Glue, ECR, CloudFront, Kinesis, OpenSearch), plus the
// database services that keep data the same way (DocumentDB, Neptune,
// Redshift, ElastiCache), so the warning errs on the side of the data.
var statefulServices = []string{
	"AWS::RDS::", "AWS::DynamoDB::", "AWS::EFS::", "AWS::FSx::", "AWS::EC2::Volume", "AWS::S3::Bucket",
	"AWS::Logs::", "AWS::Cognito::", "AWS::SecretsManager::", "AWS::SSM::", "AWS::Glue::", "AWS::ECR::",
	"AWS::CloudFront::", "AWS::Kinesis::", "AWS::OpenSearchService::", "AWS::Elasticsearch::",
	"AWS::DocDB::", "AWS::Neptune::", "AWS::Redshift::", "AWS::RedshiftServerless::", "AWS::ElastiCache::",
}

// IsStateful reports a type whose recreation destroys its data.
func IsStateful(resourceType string) bool {
	for _, s := range statefulServices {
		if strings.HasPrefix(resourceType, s) {
			return true
		}
	}
	return false
}
