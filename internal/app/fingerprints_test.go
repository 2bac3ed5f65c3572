package app

import (
	"context"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cfnschema"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"gotest.tools/v3/assert"
)

type fakeResolver map[string]string

func (f fakeResolver) Resolve(_ context.Context, ref dynref.Ref) (string, bool, error) {
	return f[ref.Raw], true, nil
}

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
	r := &Env{}
	r.asm, r.set = &assembly.Assembly{Stacks: []assembly.Stack{child, parent}}, secrets.NewSet()
	res := r.recordRefs(fakeResolver{"{{resolve:secretsmanager:a}}": "sm-value"})
	_, _, err := res.Resolve(context.Background(), dynref.Ref{Raw: "{{resolve:secretsmanager:a}}"})
	assert.NilError(t, err)

	got := map[string]*slot{}
	for _, s := range r.slots(child, "us-east-1") {
		got[s.pos.Key()] = s
	}
	assert.Equal(t, len(got), 5, "a position that is not secure is left out")
	db := got["resource:Db.MasterUserPassword"]
	assert.Assert(t, db.known)
	assert.Equal(t, db.value, "pw-default")
	assert.Equal(t, db.resourceType, "AWS::RDS::DBInstance", "the type the assembly read")
	assert.Equal(t, db.kind, model.SecretNoEcho)
	assert.Equal(t, got["resource:Fn.Environment.Variables.A"].kind, model.SecretReference)
	assert.Equal(t, got["resource:Fn.Environment.Variables.A"].value, "sm-value")
	for key, why := range map[string]string{
		"resource:Fn.Environment.Variables.B": "known only after the deploy",
		"resource:Fn.Environment.Variables.C": "was not resolved",
		"resource:Fn.Environment.Variables.D": "has no default",
	} {
		assert.Assert(t, !got[key].known, key)
		assert.ErrorContains(t, errString(got[key].why), why)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// A position is recorded only when its value reached AWS in this deploy.
func TestAppliedByDeploy(t *testing.T) {
	table, err := cfnschema.Load()
	assert.NilError(t, err)
	fp := &fpRun{table: table}
	db := &slot{resourceType: "AWS::RDS::DBInstance", pos: fingerprint.Position{Kind: fingerprint.KindResource, LogicalID: "Db", Path: "MasterUserPassword"}}
	dir := &slot{resourceType: "AWS::DirectoryService::SimpleAD", pos: fingerprint.Position{Kind: fingerprint.KindResource, LogicalID: "Dir", Path: "Password"}}
	out := &slot{pos: fingerprint.Position{Kind: fingerprint.KindOutput, Output: "Pw"}}
	replaced := map[string]*model.ResourceChange{"Dir": {LogicalID: "Dir", ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Name", RequiresReplacement: true}}}}
	stack := func(results ...string) reporters.DeployedStack {
		var ds reporters.DeployedStack
		for i := 0; i+1 < len(results); i += 2 {
			ds.Resources = append(ds.Resources, reporters.DeployedResource{LogicalID: results[i], Result: results[i+1]})
		}
		return ds
	}
	tests := []struct {
		name    string
		slot    *slot
		ds      reporters.DeployedStack
		changes map[string]*model.ResourceChange
		outcome reporters.DeployOutcome
		want    bool
	}{
		{"created", dir, stack("Dir", "created"), nil, reporters.OutcomeDeployed, true},
		{"updated, updatable", db, stack("Db", "updated"), nil, reporters.OutcomeDeployed, true},
		{"updated, create-only never reported: kept", dir, stack("Dir", "updated"), nil, reporters.OutcomeDeployed, false},
		{"updated as the reviewed replacement", dir, stack("Dir", "updated"), replaced, reporters.OutcomeDeployed, true},
		{"failed", db, stack("Db", "failed"), nil, reporters.OutcomeFailed, false},
		{"unchanged: no event", db, stack("Other", "updated"), nil, reporters.OutcomeDeployed, false},
		{"an output of a deployed stack", out, stack(), nil, reporters.OutcomeDeployed, true},
		{"an output of a failed deploy", out, stack(), nil, reporters.OutcomeFailed, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &deployRun{rep: reporters.DeployReport{Outcome: tc.outcome}}
			assert.Equal(t, d.applied(fp, tc.slot, tc.ds, tc.changes), tc.want)
		})
	}
}
