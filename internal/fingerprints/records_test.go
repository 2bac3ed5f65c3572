package fingerprints

import (
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"gotest.tools/v3/assert"
)

// Each position gets today's value: a NoEcho default (a nested stack's
// from its parent), a resolved reference; what cannot be known says why.
func TestSlotValues(t *testing.T) {
	def := "pw-default"
	parent := assembly.Stack{Name: "Parent", Region: "us-east-1", NoEchoParams: []assembly.Parameter{{Name: "Pw", Default: &def}}}
	child := assembly.Stack{Name: "Parent~Child", Parent: "Parent", Region: "us-east-1", Types: map[string]string{"Db": "AWS::RDS::DBInstance", "Fn": "AWS::Lambda::Function"}, Positions: []assembly.Position{
		{Kind: assembly.KindResource, LogicalID: "Db", Path: "MasterUserPassword", Source: model.SecretNoEcho, Parameter: "Pw", Secure: true, Whole: true},
		{Kind: assembly.KindResource, LogicalID: "Fn", Path: "Environment.Variables.A", Source: model.SecretReference, Reference: "{{resolve:secretsmanager:a}}", Secure: true},
		{Kind: assembly.KindResource, LogicalID: "Fn", Path: "Environment.Variables.B", Source: model.SecretReference, Reference: "{{resolve:secretsmanager:${Gen}:SecretString:p}}", Secure: true},
		{Kind: assembly.KindResource, LogicalID: "Fn", Path: "Environment.Variables.C", Source: model.SecretReference, Reference: "{{resolve:secretsmanager:unread}}", Secure: true},
		{Kind: assembly.KindResource, LogicalID: "Fn", Path: "Environment.Variables.D", Source: model.SecretNoEcho, Parameter: "NoDefault", Secure: true},
		{Kind: assembly.KindResource, LogicalID: "Fn", Path: "Environment.Variables.E", Source: model.SecretReference, Reference: "{{resolve:ssm:/plain}}", Secure: false},
	}}
	asm := &assembly.Assembly{Stacks: []assembly.Stack{child, parent}}
	resolved := map[string]string{"{{resolve:secretsmanager:a}}": "sm-value"}
	r := &Run{Assembly: func() *assembly.Assembly { return asm }, RefValue: func(raw string) (string, bool) {
		v, ok := resolved[raw]
		return v, ok
	}}

	got := map[string]*Slot{}
	for _, s := range r.Slots(child, "us-east-1") {
		got[s.Pos.Key()] = s
	}
	assert.Equal(t, len(got), 5, "a position that is not secure is left out")
	db := got["resource:Db.MasterUserPassword"]
	assert.Assert(t, db.Known)
	assert.Equal(t, db.Value, "pw-default")
	assert.Equal(t, db.ResourceType, "AWS::RDS::DBInstance", "the type the assembly read")
	assert.Equal(t, db.Kind, model.SecretNoEcho)
	assert.Equal(t, got["resource:Fn.Environment.Variables.A"].Kind, model.SecretReference)
	assert.Equal(t, got["resource:Fn.Environment.Variables.A"].Value, "sm-value")
	for key, why := range map[string]string{
		"resource:Fn.Environment.Variables.B": "known only after the deploy",
		"resource:Fn.Environment.Variables.C": "was not resolved",
		"resource:Fn.Environment.Variables.D": "has no default",
	} {
		assert.Assert(t, !got[key].Known, key)
		assert.ErrorContains(t, errString(got[key].Why), why)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
