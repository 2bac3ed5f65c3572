package main

import (
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// #34 item 6: a Lambda function URL whose AuthType becomes NONE publishes
// the function, even when its public permission was deployed before, and an
// API Gateway method without authorization publishes what it fronts: the
// review shows a broadening row, and require-approval: broadening refuses
// the deploy until it is approved.
func TestPublicEndpointsAreBroadening(t *testing.T) {
	const (
		url    = `{"Resources":{"FnUrl":{"Type":"AWS::Lambda::Url","Properties":{"AuthType":"NONE","TargetFunctionArn":"arn:aws:lambda:us-east-1:000000000000:function:f"}}}}`
		method = `{"Resources":{"GetItems":{"Type":"AWS::ApiGateway::Method","Properties":{"HttpMethod":"GET","AuthorizationType":"NONE","ResourceId":"r1","RestApiId":"a1"}}}}`
	)
	for _, c := range []struct{ name, template, change, row string }{
		{"created with AuthType NONE", url, `{"logicalId":"FnUrl","changeType":"CREATE","resourceType":"AWS::Lambda::Url"}`,
			"endpoint published without authentication: AuthType: NONE (created) in FnUrl (AWS::Lambda::Url) in StackA"},
		{"flipped from AWS_IAM to NONE", url, `{"logicalId":"FnUrl","changeType":"UPDATE","resourceType":"AWS::Lambda::Url","propertyChanges":[{"path":"AuthType","oldValue":"AWS_IAM","newValue":"NONE","requiresReplacement":false}]}`,
			"endpoint published without authentication: AuthType: AWS_IAM → NONE in FnUrl (AWS::Lambda::Url) in StackA"},
		{"an API Gateway method created without authorization", method, `{"logicalId":"GetItems","changeType":"CREATE","resourceType":"AWS::ApiGateway::Method"}`,
			"endpoint published without authentication: AuthorizationType: NONE (created) in GetItems (AWS::ApiGateway::Method) in StackA"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			asm := filepath.Join(w.dir, "cdk.out")
			writeFile(t, filepath.Join(asm, "manifest.json"), `{"version":"55.0.0","artifacts":{"StackA":{"type":"aws:cloudformation:stack","environment":"aws://unknown-account/us-east-1","properties":{"templateFile":"StackA.template.json"}}}}`)
			writeFile(t, filepath.Join(asm, "StackA.template.json"), c.template)
			diff := filepath.Join(w.dir, "url.json")
			writeFile(t, diff, `[{"stack":"StackA","region":"us-east-1","changes":[`+c.change+`],"outputChanges":[]}]`)
			w.stub(gateDiff(t, diff), gateDiff(t, diff))
			w.onPullRequest(reviewedSHA)
			res := w.run(diffInputs())
			assert.Equal(t, res.code, 0, res.stdout)
			assert.Equal(t, res.outputs["broadening"], "true")
			assert.Assert(t, is.Contains(prComment(t, w.gh).Body, "endpoint published without authentication"))
			w.onPush()
			res = w.run(deployInputs("require-approval", "broadening"))
			assert.Equal(t, res.outputs["failure-reason"], "broadening-refused", res.stdout)
			assert.Assert(t, is.Contains(res.stdout, c.row))
		})
	}
}
