package deploy

import (
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/cfnschema"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"gotest.tools/v3/assert"
)

// A position is recorded only when its value reached AWS in this deploy.
func TestAppliedByDeploy(t *testing.T) {
	table, err := cfnschema.Load()
	assert.NilError(t, err)
	fp := &fingerprints.Records{Table: table}
	db := &fingerprints.Slot{ResourceType: "AWS::RDS::DBInstance", Pos: fingerprint.Position{Kind: fingerprint.KindResource, LogicalID: "Db", Path: "MasterUserPassword"}}
	dir := &fingerprints.Slot{ResourceType: "AWS::DirectoryService::SimpleAD", Pos: fingerprint.Position{Kind: fingerprint.KindResource, LogicalID: "Dir", Path: "Password"}}
	out := &fingerprints.Slot{Pos: fingerprint.Position{Kind: fingerprint.KindOutput, Output: "Pw"}}
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
		slot    *fingerprints.Slot
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
			d := &run{Check: &gatecheck.Check{Rep: reporters.DeployReport{Outcome: tc.outcome}}}
			assert.Equal(t, d.applied(fp, tc.slot, tc.ds, tc.changes), tc.want)
		})
	}
}
