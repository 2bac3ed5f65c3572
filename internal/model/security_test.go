package model

import (
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
)

// TestSortSecurity: rows sort by stack, resource, property, removed before
// added, then content; their content is encoded only to order rows alike in
// everything else, so a diff's sorted rows are checked without encoding
// any.
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

// What may widen access needs an approval: a row that cannot be evaluated
// before the deploy (unknown, unresolved) counts as broadening, fail
// closed; a narrowing and a removal do not.
func TestCountsAsBroadening(t *testing.T) {
	for s, want := range map[SecurityStatus]bool{SecurityBroadening: true, SecurityUnknown: true, SecurityUnresolved: true, SecurityNarrowed: false, SecurityRemoved: false} {
		assert.Equal(t, s.CountsAsBroadening(), want, "%q", s)
	}
	tally := TallySecurity([]SecurityChange{{Status: SecurityUnresolved}, {Status: SecurityNarrowed}})
	assert.Equal(t, tally, SecurityTally{Rows: 2, Broadening: 1})
}
