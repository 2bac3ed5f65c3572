package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
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
	var log bytes.Buffer
	r := testEnv(t, &log)
	r.asm = securityAssembly(t)
	r.cfg.FromJSON = "saved.json" // no cdkd: a deleted resource's state is not read
	r.set.Add("s3cr3t-v4lue", "test")
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "App", Region: "us-east-1", Changes: []model.ResourceChange{
		{LogicalID: "Invoke", ChangeType: model.ChangeCreate, ResourceType: "AWS::Lambda::Permission"},
		{LogicalID: "In", ChangeType: model.ChangeUpdate, ResourceType: "AWS::EC2::SecurityGroupIngress", PropertyChanges: []model.PropertyChange{
			{Path: "CidrIp", Old: model.StringValue("10.0.0.0/8"), New: model.StringValue("10.0.0.0/16")}}},
		{LogicalID: "Policy", ChangeType: model.ChangeDelete, ResourceType: "AWS::S3::BucketPolicy"},
		{LogicalID: "Role", ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Role", PropertyChanges: []model.PropertyChange{
			{Path: "AssumeRolePolicyDocument", Old: model.MaskedValue(), New: model.MaskedValue(), Secret: model.SecretNoEcho}}},
		{LogicalID: "Topic", ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"},
		// A creation the change set binds: its values are read from there.
		{LogicalID: "Bound", ChangeType: model.ChangeCreate, ResourceType: "AWS::IAM::ManagedPolicy", PropertyChanges: []model.PropertyChange{
			{Path: "PolicyDocument", New: model.JSONValue(`{"Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"*"}]}`)}}},
	}}}}
	r.securityChanges(context.Background(), &d)
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
		// deleted without its state: a Deny may go
		"remove Policy values not known unknown",
		// hidden by redaction on both sides: something changed
		"add Role value hidden (***) unknown",
		"add Bound Allow iam:PassRole on * broadening",
	})
	assert.Assert(t, strings.Contains(d.Stacks[0].Security[3].Note, "from-json"))
	assert.Equal(t, d.Stacks[0].Security[0].Findings[0], security.FindingWildcardPrincipal)
}
