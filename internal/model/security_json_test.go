package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"gotest.tools/v3/assert"
)

// securityRows fills every field of a row, and leaves each out, with s.
func securityRows(s string) []SecurityChange {
	full := SecurityChange{Stack: s, Region: s, LogicalID: s, ResourceType: s, Property: s, Op: SecurityOp(s), Kind: SecurityKind(s),
		Statement: &PolicyStatement{Sid: s, Effect: s, Principals: []string{s, s}, NotPrincipal: true, Actions: []string{s}, NotAction: true,
			Resources: []string{s}, NotResource: true, Condition: s, Raw: s},
		ManagedPolicy: s, Rule: &SecurityRule{Direction: s, Group: s, Protocol: s, FromPort: s, ToPort: s, Peer: s, PeerKind: s, Description: s, Raw: s},
		Item: s, Findings: []SecurityFinding{SecurityFinding(s), FindingOpenIngress}, Status: SecurityStatus(s), Note: s}
	return []SecurityChange{
		full,
		{Stack: s, LogicalID: s, ResourceType: s, Op: SecurityOp(s), Kind: SecurityKind(s)},
		{},
		{Statement: &PolicyStatement{}, Rule: &SecurityRule{}, Findings: []SecurityFinding{}},
		{Statement: &PolicyStatement{Principals: []string{}, Actions: []string{""}}, Rule: &SecurityRule{Description: s}},
	}
}

var securityJSONSeeds = []string{
	"", "plain", `q"uote`, `back\slash`, "<html>&amp;", "new\nline\ttab\r\b\f\x00\x1f", "é ü 日本", "\u2028\u2029",
	"\xff invalid \xfe", "\ufffd", "del\x7f", `{"Fn::Sub":"${AWS::AccountId}"}`,
}

func TestSecurityJSONIsMarshal(t *testing.T) {
	for _, s := range securityJSONSeeds {
		checkSecurityJSON(t, s)
	}
}

// A field added to a row must be written by appendSecurityJSON too (and
// filled in securityRows).
func TestSecurityJSONKnowsEveryField(t *testing.T) {
	for typ, n := range map[reflect.Type]int{
		reflect.TypeFor[SecurityChange](): 14, reflect.TypeFor[PolicyStatement](): 10, reflect.TypeFor[SecurityRule](): 9,
	} {
		assert.Equal(t, typ.NumField(), n, "%s has a field appendSecurityJSON does not write", typ)
	}
}

func FuzzSecurityJSONIsMarshal(f *testing.F) {
	for _, s := range securityJSONSeeds {
		f.Add(s)
	}
	f.Fuzz(checkSecurityJSON)
}

func checkSecurityJSON(t *testing.T, s string) {
	t.Helper()
	for _, c := range securityRows(s) {
		want, err := json.Marshal(c)
		assert.NilError(t, err)
		assert.Equal(t, string(appendSecurityJSON([]byte("kept"), c)), "kept"+string(want))
		assert.Equal(t, c.Key(), keyReference(t, c))
	}
}
