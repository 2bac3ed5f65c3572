package assembly

import (
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// formerAssemblies are an assembly before a change (base) whose Storage
// exports its queue's URL and a topic's ARN, and the one after it, where the
// queue and its export are gone but Api still imports both.
func formerAssemblies(t *testing.T) (a, base *Assembly) {
	t.Helper()
	manifest := fs.WithFile("manifest.json", `{"artifacts": {
	  "Storage": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Storage.template.json"}},
	  "Api": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Api.template.json"}}}}`)
	api := fs.WithFile("Api.template.json", `{"Resources": {
	  "Worker": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {"Q": {"Fn::ImportValue": "Storage-QueueUrl"}}}}},
	  "Alerts": {"Type": "AWS::SNS::Subscription", "Properties": {"TopicArn": {"Fn::ImportValue": "Storage-TopicArn"}}}}}`)
	was := fs.NewDir(t, "base", manifest, api, fs.WithFile("Storage.template.json", `{
	  "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}, "Topic": {"Type": "AWS::SNS::Topic"}},
	  "Outputs": {
	    "QueueUrl": {"Value": {"Ref": "Queue"}, "Export": {"Name": "Storage-QueueUrl"}},
	    "TopicArn": {"Value": {"Ref": "Topic"}, "Export": {"Name": "Storage-TopicArn"}}}}`))
	now := fs.NewDir(t, "new", manifest, api, fs.WithFile("Storage.template.json", `{
	  "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
	  "Outputs": {"TopicArn": {"Value": {"Ref": "Topic"}, "Export": {"Name": "Storage-TopicArn"}}}}`))
	base, err := Load(was.Path())
	assert.NilError(t, err)
	a, err = Load(now.Path())
	assert.NilError(t, err)
	return a, base
}

// A deleted resource's former importers are found from the assembly before
// the change: the resources that still import an export it fed that no
// stack exports any more. An export still exported is not one.
func TestFormerImporters(t *testing.T) {
	a, base := formerAssemblies(t)
	got, err := a.FormerImporters(base, Stack{Name: "Storage", Region: "us-east-1"}, []string{"Queue", "Topic"})
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []FormerImporter{{Referrer: Referrer{Stack: "Api", ID: "Worker", Type: "AWS::Lambda::Function", On: []string{"Queue"}},
		Export: "Storage-QueueUrl", Exporter: "Storage"}})
	none, err := a.FormerImporters(nil, Stack{Name: "Storage", Region: "us-east-1"}, []string{"Queue"})
	assert.NilError(t, err)
	assert.Assert(t, none == nil, "without base-app, nothing knows what a deleted resource fed")

	// The picture draws them as the deleted resource's dependents.
	d := model.Diff{Stacks: []model.StackDiff{
		{Stack: "Storage", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "Queue", ChangeType: model.ChangeDelete, ResourceType: "AWS::SQS::Queue"}}},
		{Stack: "Api", Region: "us-east-1"},
	}}
	g, former, err := a.Picture(d, base, nil, nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, former, got)
	assert.DeepEqual(t, g.Stacks[0].Nodes, []blast.Node{
		{ID: "Queue", Type: "AWS::SQS::Queue", Kind: blast.Delete},
		{ID: "Worker", Type: "AWS::Lambda::Function", Kind: blast.Unchanged, Stack: "Api"},
	})
	assert.DeepEqual(t, g.Stacks[0].Edges, [][2]int{{1, 0}})
}
