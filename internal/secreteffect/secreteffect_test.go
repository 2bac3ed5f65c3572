package secreteffect

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cfnschema"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The decision table of docs/secrets.md, row by row: what cdkd's diff
// shows first, then cdkd's rules per source, from the schema data.
func TestDecide(t *testing.T) {
	table, err := cfnschema.Load()
	assert.NilError(t, err)
	noEcho := func(typ, path string) Position {
		return Position{ResourceType: typ, Path: path, Source: model.SecretNoEcho}
	}
	ref := func(typ, path string) Position {
		return Position{ResourceType: typ, Path: path, Source: model.SecretReference}
	}
	replace := &model.ResourceChange{ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Engine", RequiresReplacement: true}}}
	other := &model.ResourceChange{ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Description"}}}
	shown := &model.ResourceChange{ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Value"}}}
	shownParent := &model.ResourceChange{ChangeType: model.ChangeUpdate, PropertyChanges: []model.PropertyChange{{Path: "Environment"}}}
	tests := []struct {
		name   string
		pos    Position
		change *model.ResourceChange
		want   Decision
	}{
		// NoEcho, hidden (the seeds' cdkd): the seed's four rows.
		{"NoEcho, updatable, reported", noEcho("AWS::Lambda::Function", "Environment.Variables.TOKEN"), nil, Decision{Effect: model.EffectUpdated}},
		{"NoEcho, updatable, never reported", noEcho("AWS::RDS::DBInstance", "MasterUserPassword"), nil, Decision{Effect: model.EffectUpdated}},
		{"NoEcho, create-only, reported", noEcho("AWS::RDS::DBInstance", "MasterUsername"), nil, Decision{Effect: model.EffectReplaceIfDiffers, Stateful: true}},
		{"NoEcho, create-only, reported: the seeds' queue named after a secret", noEcho("AWS::SQS::Queue", "QueueName"), nil, Decision{Effect: model.EffectReplaceIfDiffers}},
		{"NoEcho, create-only, never reported", noEcho("AWS::DirectoryService::SimpleAD", "Password"), nil, Decision{Effect: model.EffectNotApplied, Remedy: model.RemedyRecreate}},
		{"NoEcho, create-only, never reported, stateful", noEcho("AWS::RDS::DBCluster", "SnapshotIdentifier"), nil, Decision{Effect: model.EffectNotApplied, Remedy: model.RemedyRecreate, Stateful: true}},
		{"NoEcho, a type the table lacks", noEcho("AWS::Nope::Thing", "Secret"), nil, Decision{Effect: model.EffectUnknown}},
		{"NoEcho, a property the table lacks", noEcho("AWS::SQS::Queue", "NoSuchProperty"), nil, Decision{Effect: model.EffectUnknown}},
		{"NoEcho, custom resource", noEcho("Custom::Seeder", "Password"), nil, Decision{Effect: model.EffectHandlerRuns}},
		// NoEcho shown by cdkd 0.284's own diff: cdkd's change, nothing added.
		{"NoEcho in cdkd's diff", noEcho("AWS::SSM::Parameter", "Value"), shown, Decision{Effect: model.EffectInCdkdDiff}},
		{"NoEcho under an object cdkd's diff shows", noEcho("AWS::Lambda::Function", "Environment.Variables.TOKEN"), shownParent, Decision{Effect: model.EffectInCdkdDiff}},
		// A reference: cdkd compares its text.
		{"reference, unchanged text, updatable", ref("AWS::SSM::Parameter", "Value"), nil, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyDriftRevert}},
		{"reference, unchanged text, create-only", ref("AWS::SQS::Queue", "QueueName"), nil, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference}},
		{"reference, unchanged text, create-only, stateful", ref("AWS::RDS::DBInstance", "MasterUsername"), nil, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference, Stateful: true}},
		{"reference, unchanged text, never reported", ref("AWS::RDS::DBInstance", "MasterUserPassword"), nil, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference}},
		{"reference, unchanged text, a type the table lacks", ref("AWS::Nope::Thing", "Secret"), nil, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference}},
		{"reference, resource updated for another property", ref("AWS::SSM::Parameter", "Value"), other, Decision{Effect: model.EffectReferenceResourceUpdated, Remedy: model.RemedyDriftRevert}},
		{"reference, create-only, resource updated for another property", ref("AWS::SQS::Queue", "QueueName"), other, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference}},
		{"reference text changed: cdkd's diff shows it", ref("AWS::SSM::Parameter", "Value"), shown, Decision{Effect: model.EffectInCdkdDiff}},
		{"reference, custom resource left alone", ref("Custom::Seeder", "Password"), nil, Decision{Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference}},
		// What cdkd's diff says about the resource comes first.
		{"created in this deploy", noEcho("AWS::DirectoryService::SimpleAD", "Password"), &model.ResourceChange{ChangeType: model.ChangeCreate}, Decision{Effect: model.EffectCreated}},
		{"replaced in this deploy", ref("AWS::SQS::Queue", "QueueName"), replace, Decision{Effect: model.EffectReplaced}},
		{"an output", Position{Output: true, Source: model.SecretNoEcho}, nil, Decision{Effect: model.EffectUpdated}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, Decide(table, tc.pos, tc.change), tc.want)
		})
	}
}
