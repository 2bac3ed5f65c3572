package app

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
	dir := t.TempDir()
	write := func(name, body string) {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("manifest.json", `{"version":"36.0.0","artifacts":{"App":{"type":"aws:cloudformation:stack","environment":"aws://123456789012/us-east-1","properties":{"templateFile":"App.template.json"}}}}`)
	write("App.template.json", `{"Resources":{
		"Invoke":{"Type":"AWS::Lambda::Permission","Properties":{"Action":"lambda:InvokeFunction","FunctionName":{"Fn::GetAtt":["Fn","Arn"]},"Principal":"*","SourceArn":"arn:aws:s3:::bucket-s3cr3t-v4lue"}},
		"In":{"Type":"AWS::EC2::SecurityGroupIngress","Properties":{"GroupId":{"Fn::GetAtt":["Sg","GroupId"]},"IpProtocol":"tcp","FromPort":443,"ToPort":443,"CidrIp":"10.0.0.0/16"}}}}`)
	asm, err := assembly.Load(dir)
	assert.NilError(t, err)
	return asm
}

func TestSecurityChangesGatherEachSide(t *testing.T) {
	set := secrets.NewSet()
	set.Add("s3cr3t-v4lue", "test")
	stage := securityStage{asm: securityAssembly(t), set: set, state: func(_ context.Context, name string) (*cdkd.StackState, string) {
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
			{Path: "AssumeRolePolicyDocument", Old: model.MaskedValue(), New: model.MaskedValue(), Secret: model.SecretNoEcho}}},
		{LogicalID: "Topic", ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"},
		// A creation the change set binds: its values are read from there.
		{LogicalID: "Bound", ChangeType: model.ChangeCreate, ResourceType: "AWS::IAM::ManagedPolicy", PropertyChanges: []model.PropertyChange{
			{Path: "PolicyDocument", New: model.JSONValue(`{"Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"*"}]}`)}}},
	}}}}
	stage.changes(context.Background(), &d)
	var got []string
	for _, c := range d.Stacks[0].Security {
		got = append(got, string(c.Op)+" "+c.LogicalID+" "+security.Describe(c)+" "+string(c.Status))
	}
	assert.DeepEqual(t, got, []string{
		// created: the template's values, redacted before they are read
		"add Invoke Allow lambda:InvokeFunction on ${Fn.Arn} to * when {\"ArnLike\":{\"AWS:SourceArn\":\"arn:aws:s3:::bucket-***\"}} broadening",
		// updated: the group comes from the template, unchanged
		"remove In ${Sg.GroupId} ingress tcp:443 from 10.0.0.0/8 ",
		"add In ${Sg.GroupId} ingress tcp:443 from 10.0.0.0/16 narrowed",
		// deleted: its state's values, redacted before they are read
		"remove Policy Deny s3:GetObject on arn:aws:s3:::b-***/* to * broadening",
		// deleted, not in the state: a Deny may go
		"remove Gone values not known unknown",
		// hidden by redaction on both sides: something changed
		"add Role value hidden (***) unknown",
		"add Bound Allow iam:PassRole on * broadening",
	})
	assert.Equal(t, d.Stacks[0].Security[4].Note, "cdkd's state has no resource Gone")
	assert.Equal(t, d.Stacks[0].Security[0].Findings[0], security.FindingWildcardPrincipal)
}

// A diff read from a saved report has no cdkd to read a state with, and a
// deleted resource's values say so.
func TestStackStateOfASavedDiff(t *testing.T) {
	r := &Env{}
	r.cfg.FromJSON = "saved.json"
	state, why := r.stackState(context.Background(), "App")
	assert.Assert(t, state == nil)
	assert.Equal(t, why, "cdkd's state was not read (the diff came from from-json)")
}
