package model

import (
	"encoding/json"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
)

// TestSortSecurity: rows sort by stack, resource, property, removed before
// added, then content; their content is encoded only to order rows alike in
// everything else, so a diff's sorted rows are checked without encoding
// any (an encoding per comparison was 3% of a 10,000-resource run).
func TestSortSecurity(t *testing.T) {
	stmt := func(action string) *PolicyStatement {
		return &PolicyStatement{Effect: "Allow", Actions: []string{action}}
	}
	row := func(stack, id string, op SecurityOp, action string) SecurityChange {
		return SecurityChange{Stack: stack, LogicalID: id, Property: "PolicyDocument", Op: op, Kind: SecurityStatementKind, Statement: stmt(action)}
	}
	rows := []SecurityChange{
		row("B", "P1", SecurityAdd, "s3:Get"), row("A", "P2", SecurityAdd, "s3:Put"), row("A", "P2", SecurityAdd, "s3:Get"),
		row("A", "P2", SecurityRemove, "s3:Put"), row("A", "P1", SecurityAdd, "s3:Get"),
	}
	SortSecurity(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r.Stack+"/"+r.LogicalID+" "+string(r.Op)+" "+r.Statement.Actions[0])
	}
	assert.DeepEqual(t, got, []string{"A/P1 add s3:Get", "A/P2 remove s3:Put", "A/P2 add s3:Get", "A/P2 add s3:Put", "B/P1 add s3:Get"})

	sorted := make([]SecurityChange, 0, 1000)
	for i := range 1000 {
		sorted = append(sorted, row("S", fmt.Sprintf("P%04d", i), SecurityAdd, "s3:Get"))
	}
	if n := testing.AllocsPerRun(5, func() { SortSecurity(sorted) }); n != 0 {
		t.Errorf("checking 1,000 sorted rows allocated %v times", n)
	}
}

// TestKeyTellsApartWhatMarshalDoes checks every pair of a set of rows
// alike but for one detail: Key, written without reflection, must agree
// with json.Marshal of the content on which are equal (and be its bytes,
// which order rows), or a security change would hide an element or invent
// one.
func TestKeyTellsApartWhatMarshalDoes(t *testing.T) {
	st := func(f func(*PolicyStatement)) *PolicyStatement {
		s := &PolicyStatement{Effect: "Allow", Actions: []string{"s3:GetObject"}, Resources: []string{"*"}}
		f(s)
		return s
	}
	rows := []SecurityChange{
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(*PolicyStatement) {})},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Principals = []string{} })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Actions = []string{"s3:GetObject", ""} })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Actions = nil; s.Resources = []string{"s3:GetObject", "*"} })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.NotAction = true })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Sid = "a:1" })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Sid = "a"; s.Effect = ":1Allow" })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: &PolicyStatement{}},
		{Kind: SecurityStatementKind, Property: "PolicyDocument"},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Raw = "\xff" })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Raw = "\xfe" })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Raw = "\uFFFD" })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Raw = `\uFFFD` })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Raw = "\\\xff" })},
		{Kind: SecurityStatementKind, Property: "PolicyDocument", Statement: st(func(s *PolicyStatement) { s.Raw = `\\uFFFD` })},
		{Kind: SecurityRuleKind, Property: "IngressRules", Rule: &SecurityRule{Direction: "ingress", Protocol: "tcp", FromPort: "443", ToPort: "443", Peer: "0.0.0.0/0"}},
		{Kind: SecurityRuleKind, Property: "IngressRules", Rule: &SecurityRule{Direction: "ingress", Protocol: "tcp", FromPort: "443", Peer: "443", ToPort: "0.0.0.0/0"}},
		{Kind: SecurityRuleKind, Property: "IngressRules", Rule: &SecurityRule{}},
		{Kind: SecurityRuleKind, Property: "IngressRules"},
		{Kind: SecurityManagedPolicyKind, Property: "ManagedPolicyArns", ManagedPolicy: "arn:aws:iam::aws:policy/A"},
		{Kind: SecurityManagedPolicyKind, Property: "ManagedPolicyArns", Item: "arn:aws:iam::aws:policy/A"},
		{Kind: SecuritySSOKind, Item: "<x>"},
		{Kind: SecuritySSOKind, Item: `\u003cx>`},
	}
	same := rows[0]
	same.Op, same.Status, same.Note, same.Stack = SecurityAdd, SecurityBroadening, "a note", "other" // not content
	rows = append(rows, same)
	for _, r := range rows {
		assert.Equal(t, r.Key(), keyReference(t, r))
	}
	for i, a := range rows {
		for j, b := range rows {
			assert.Equal(t, a.Key() == b.Key(), keyReference(t, a) == keyReference(t, b), "rows %d and %d: %s / %s", i, j, a.Key(), b.Key())
		}
	}
}

// keyReference is what Key was written as before it avoided reflection.
func keyReference(t testing.TB, c SecurityChange) string {
	t.Helper()
	b, err := json.Marshal(struct {
		K SecurityKind
		P string
		S *PolicyStatement
		M string
		R *SecurityRule
		I string
	}{c.Kind, c.Property, c.Statement, c.ManagedPolicy, c.Rule, c.Item})
	assert.NilError(t, err)
	return string(b)
}
