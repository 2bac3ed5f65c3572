// Package security finds the security changes in a change set: who can do
// what (IAM and resource policy statements, managed policy attachments,
// Lambda permissions, SSO items) and who can reach what (security group
// rules), each added or removed, and whether it broadens access. It is
// pure: the caller hands it the old and new values of the scrutinized
// properties of each changed resource.
//
// What is scrutinized comes from scrutinized.json, a reduced copy of the
// AWS service spec database that aws-cdk's own `cdk diff` classifies
// security changes with (its source and version are in the file;
// regenerate it with scripts/scrutiny-subset).
package security

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

//go:embed scrutinized.json
var scrutinizedJSON []byte

// The database's classifications this package acts on.
const (
	kindIdentityPolicyResource = "IdentityPolicyResource"
	kindResourcePolicyResource = "ResourcePolicyResource"
	kindLambdaPermission       = "LambdaPermission"
	kindIngressRuleResource    = "IngressRuleResource"
	kindEgressRuleResource     = "EgressRuleResource"
	kindSsoPermissionSet       = "SsoPermissionSet"
	kindSsoAssignment          = "SsoAssignmentResource"
	kindSsoACAConfig           = "SsoInstanceACAConfigResource"

	propPolicyDocument         = "PolicyDocument" // a policy resource's document (the subset's own name)
	propInlineResourcePolicy   = "InlineResourcePolicy"
	propInlineIdentityPolicies = "InlineIdentityPolicies"
	propManagedPolicies        = "ManagedPolicies"
	propIngressRules           = "IngressRules"
	propEgressRules            = "EgressRules"
)

// watched are properties CDK's diff does not look at and this package
// does, each for one finding.
var watched = map[string]map[string]bool{
	"AWS::IAM::Role":  {"PermissionsBoundary": true},
	"AWS::IAM::User":  {"PermissionsBoundary": true},
	"AWS::S3::Bucket": {"PublicAccessBlockConfiguration": true},
	// Endpoints published without authentication (endpoints.go): the
	// authorization property, and what names a method or route (read on
	// creation, where an absent authorization is CloudFormation's NONE).
	"AWS::Lambda::Url":         {"AuthType": true},
	"AWS::ApiGateway::Method":  {"AuthorizationType": true, "HttpMethod": true},
	"AWS::ApiGatewayV2::Route": {"AuthorizationType": true, "RouteKey": true},
}

type typeEntry struct {
	Kind       string            `json:"kind"`
	Properties map[string]string `json:"properties"`
}

type table struct {
	Source  string               `json:"source"`
	Version string               `json:"version"`
	Types   map[string]typeEntry `json:"types"`
}

// scrutinized decodes the table when first asked: the action compiles and
// decodes nothing at start-up (a test reads the init trace).
var scrutinized = sync.OnceValue(func() table {
	var t table
	if err := json.Unmarshal(scrutinizedJSON, &t); err != nil {
		panic(fmt.Sprintf("security: the embedded scrutinized.json does not decode: %v", err))
	}
	return t
})

// Scrutinized reports whether a change to a resource of type typ can be a
// security change, so that the caller gathers its values.
func Scrutinized(typ string) bool {
	_, ok := scrutinized().Types[typ]
	return ok || watched[typ] != nil
}

// Reads is which top-level properties of a resource type security reads,
// so that a caller skips a resource that has no rows before gathering,
// redacting or decoding its values: most scrutinized changes (a queue's
// timeout, a topic's name) touch nothing this package reads.
//
// Skipping is exact, not a guess: ResourceChanges gives rows only for a
// side it could not read (OldUnknown, NewUnknown: never skipped), a hidden
// property the type's entry reads or a finding watches, an element read
// from a property the entry reads, or a finding on a watched property. The
// kinds whose elements are built from every property, present or not (a
// Lambda permission, a rule resource, an SSO item or permission set), are
// never skipped.
type Reads struct {
	every   bool
	entry   map[string]string
	watched map[string]bool
}

// ReadsOf is what security reads of typ.
func ReadsOf(typ string) Reads {
	e := scrutinized().Types[typ]
	return Reads{every: wholeResource(e.Kind) || e.Kind == kindSsoPermissionSet, entry: e.Properties, watched: watched[typ]}
}

// Property reports whether a row can depend on the property.
func (rd Reads) Property(prop string) bool {
	_, read := rd.entry[prop]
	return rd.every || read || rd.watched[prop]
}

// None reports that no property of props (one side's values) is read. A
// resource, both sides known, whose sides and hidden properties read none
// has no rows.
func (rd Reads) None(props map[string]json.RawMessage) bool {
	if rd.every {
		return false
	}
	for p := range props {
		if rd.Property(p) {
			return false
		}
	}
	return true
}

// NoneChanged is None for a resource whose values are its property
// changes' (Resource.FromChanges), both sides and hidden ones.
func (rd Reads) NoneChanged(changes []model.PropertyChange) bool {
	if rd.every {
		return false
	}
	for _, p := range changes {
		if rd.Property(topProperty(p.Path)) {
			return false
		}
	}
	return true
}

// NeedsOldValues reports a type whose deletion can broaden access (a
// policy resource may hold a Deny), so that a deleted one's values are
// worth reading from the state; deleting anything else only takes away.
func NeedsOldValues(typ string) bool {
	k := scrutinized().Types[typ].Kind
	return k == kindIdentityPolicyResource || k == kindResourcePolicyResource
}

// WholeResource reports a type whose elements are built from all of its
// properties: an update needs the unchanged ones too (from the template).
func WholeResource(typ string) bool {
	return wholeResource(scrutinized().Types[typ].Kind)
}

func wholeResource(kind string) bool {
	switch kind {
	case kindLambdaPermission, kindIngressRuleResource, kindEgressRuleResource, kindSsoAssignment, kindSsoACAConfig:
		return true
	}
	return false
}

// DataSource says where the classification came from, for docs and tests.
func DataSource() (source, version string) { return scrutinized().Source, scrutinized().Version }
