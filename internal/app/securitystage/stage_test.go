package securitystage

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// securityAssembly is a cloud assembly of one stack holding a Lambda
// permission whose source names a secret, and an ingress rule.
func securityAssembly(t *testing.T) *assembly.Assembly {
	t.Helper()
	return appAssembly(t, `{
		"Invoke":{"Type":"AWS::Lambda::Permission","Properties":{"Action":"lambda:InvokeFunction","FunctionName":{"Fn::GetAtt":["Fn","Arn"]},"Principal":"*","SourceArn":"arn:aws:s3:::bucket-s3cr3t-v4lue"}},
		"In":{"Type":"AWS::EC2::SecurityGroupIngress","Properties":{"GroupId":{"Fn::GetAtt":["Sg","GroupId"]},"IpProtocol":"tcp","FromPort":443,"ToPort":443,"CidrIp":"10.0.0.0/16"}}}`)
}

// appAssembly is a cloud assembly of one stack, App, whose template holds
// resources (a JSON object).
func appAssembly(t *testing.T, resources string) *assembly.Assembly {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("manifest.json", `{"version":"36.0.0","artifacts":{"App":{"type":"aws:cloudformation:stack","environment":"aws://123456789012/us-east-1","properties":{"templateFile":"App.template.json"}}}}`)
	write("App.template.json", `{"Resources":`+resources+`}`)
	asm, err := assembly.Load(dir)
	assert.NilError(t, err)
	return asm
}

// stageRows runs the stage over d and describes its one stack's rows.
func stageRows(stage Stage, d *model.Diff) []string {
	stage.Changes(context.Background(), d)
	var got []string
	for _, c := range d.Stacks[0].Security {
		got = append(got, string(c.Op)+" "+c.LogicalID+" "+security.Describe(c)+" "+string(c.Status))
	}
	return got
}

func TestSecurityChangesGatherEachSide(t *testing.T) {
	set := secrets.NewSet()
	set.Add("s3cr3t-v4lue", "test")
	stage := Stage{Assembly: securityAssembly(t), Secrets: set, State: func(_ context.Context, name, _ string) (*cdkd.StackState, string) {
		assert.Equal(t, name, "App")
		return &cdkd.StackState{Resources: map[string]cdkd.StateResource{"Policy": {Properties: json.RawMessage(
			`{"Bucket":"b","PolicyDocument":{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b-s3cr3t-v4lue/*"}]}}`)}}}, ""
	}}
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Changes: []model.ResourceChange{
		{LogicalID: "Invoke", ChangeType: model.ChangeCreate, ResourceType: "AWS::Lambda::Permission"},
		{LogicalID: "In", ChangeType: model.ChangeUpdate, ResourceType: "AWS::EC2::SecurityGroupIngress", PropertyChanges: []model.PropertyChange{
			{Path: "CidrIp", Old: model.StringValue("10.0.0.0/8"), New: model.StringValue("10.0.0.0/16")}}},
		{LogicalID: "Policy", ChangeType: model.ChangeDelete, ResourceType: "AWS::S3::BucketPolicy"},
		{LogicalID: "Gone", ChangeType: model.ChangeDelete, ResourceType: "AWS::S3::BucketPolicy"},
		{LogicalID: "Role", ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Role", PropertyChanges: []model.PropertyChange{
			{Path: "AssumeRolePolicyDocument", Old: model.HiddenValue(), New: model.HiddenValue(), Secret: model.SecretNoEcho}}},
		{LogicalID: "Topic", ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"},
		// A creation the change set binds: its values are read from there.
		{LogicalID: "Bound", ChangeType: model.ChangeCreate, ResourceType: "AWS::IAM::ManagedPolicy", PropertyChanges: []model.PropertyChange{
			{Path: "PolicyDocument", New: model.JSONValue(`{"Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"*"}]}`)}}},
	}}}}
	assert.DeepEqual(t, stageRows(stage, &d), []string{
		// created: the template's values, redacted before they are read
		"add Invoke Allow lambda:InvokeFunction on ${Fn.Arn} to * when {\"ArnLike\":{\"AWS:SourceArn\":\"arn:aws:s3:::bucket-***\"}} broadening",
		// updated: the group comes from the template, unchanged
		"remove In ${Sg.GroupId} ingress tcp:443 from 10.0.0.0/8 ",
		"add In ${Sg.GroupId} ingress tcp:443 from 10.0.0.0/16 narrowed",
		// deleted: its state's values, redacted before they are read
		"remove Policy Deny s3:GetObject on arn:aws:s3:::b-***/* to * broadening",
		// deleted, not in the State: a Deny may go
		"remove Gone values not known unknown",
		// hidden by redaction on both sides: something changed
		"add Role value hidden (***) unknown",
		"add Bound Allow iam:PassRole on * broadening",
	})
	assert.Equal(t, d.Stacks[0].Security[4].Note, "cdkd's state has no resource Gone")
	assert.Equal(t, d.Stacks[0].Security[0].Findings[0], security.FindingWildcardPrincipal)
}

// The stage skips a resource none of whose properties security reads
// before gathering its values (security.Reads), on every path a resource
// takes: a creation bound by the change set or read from the template, an
// update, a deletion read from the state. One that has rows keeps them:
// a read property changed or hidden, a side that could not be read. The
// maps the values are gathered in are reused: no change sees another's.
func TestSecuritySkipsOnlyResourcesWithoutRows(t *testing.T) {
	asm := appAssembly(t, `{
		"Plain":{"Type":"AWS::SQS::Queue","Properties":{"VisibilityTimeout":30}},
		"Redrive":{"Type":"AWS::SQS::Queue","Properties":{"VisibilityTimeout":30,"RedriveAllowPolicy":{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}]}}}}`)
	policy := `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*"}]}`
	stage := Stage{Assembly: asm, Secrets: secrets.NewSet(), State: func(context.Context, string, string) (*cdkd.StackState, string) {
		return &cdkd.StackState{Resources: map[string]cdkd.StateResource{
			"GonePlain":  {Properties: json.RawMessage(`{"Queues":["q"]}`)},
			"GonePolicy": {Properties: json.RawMessage(`{"Queues":["q"],"PolicyDocument":` + policy + `}`)},
		}}, ""
	}}
	change := func(id string, ct model.ChangeType, typ string, pcs ...model.PropertyChange) model.ResourceChange {
		return model.ResourceChange{LogicalID: id, ChangeType: ct, ResourceType: typ, PropertyChanges: pcs}
	}
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Changes: []model.ResourceChange{
		change("Plain", model.ChangeCreate, "AWS::SQS::Queue"),
		change("Redrive", model.ChangeCreate, "AWS::SQS::Queue"),
		change("BoundPlain", model.ChangeCreate, "AWS::SQS::Queue", model.PropertyChange{Path: "VisibilityTimeout", New: model.JSONValue(`30`)}),
		change("BoundRedrive", model.ChangeCreate, "AWS::SQS::Queue", model.PropertyChange{Path: "RedriveAllowPolicy", New: model.JSONValue(policy)}),
		change("NotInAssembly", model.ChangeCreate, "AWS::IAM::Policy"),
		change("Timeout", model.ChangeUpdate, "AWS::SQS::Queue", model.PropertyChange{Path: "VisibilityTimeout", Old: model.JSONValue(`30`), New: model.JSONValue(`60`)}),
		change("Loosened", model.ChangeUpdate, "AWS::SQS::Queue", model.PropertyChange{Path: "RedriveAllowPolicy", Old: model.JSONValue(policy)}),
		// Nothing of the change before it stays in its values.
		change("TopicA", model.ChangeUpdate, "AWS::SNS::Topic", model.PropertyChange{Path: "DataProtectionPolicy", Old: model.JSONValue(policy)}),
		change("TopicB", model.ChangeUpdate, "AWS::SNS::Topic", model.PropertyChange{Path: "ArchivePolicy", New: model.JSONValue(policy)}),
		change("Hidden", model.ChangeUpdate, "AWS::SQS::Queue", model.PropertyChange{Path: "RedriveAllowPolicy.Statement", Old: model.JSONValue(`1`), New: model.JSONValue(`2`)}),
		change("GonePlain", model.ChangeDelete, "AWS::SQS::QueuePolicy"),
		change("GonePolicy", model.ChangeDelete, "AWS::SQS::QueuePolicy"),
		change("GoneUnknown", model.ChangeDelete, "AWS::SQS::QueuePolicy"),
	}}}}
	assert.DeepEqual(t, stageRows(stage, &d), []string{
		"add Redrive Allow sqs:* on * to * broadening",
		"add BoundRedrive Deny sqs:* on * to * narrowed",
		"add NotInAssembly values not known unknown",
		"remove Loosened Deny sqs:* on * to * broadening",
		"remove TopicA Deny sqs:* on * to * broadening",
		"add TopicB Deny sqs:* on * to * narrowed",
		"add Hidden value hidden (***) unknown",
		"remove GonePolicy Deny sqs:* on * to * broadening",
		"remove GoneUnknown values not known unknown",
	})
}
