package assembly

import (
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// What references a resource: Ref, Fn::GetAtt (both spellings), Fn::Sub
// (${X} and ${X.Attr}, not its own variables nor ${!X}), DependsOn, and in
// another stack Fn::ImportValue of an export the resource feeds.
func TestReferrers(t *testing.T) {
	const storage = `{
	  "Resources": {
	    "Bucket": {"Type": "AWS::S3::Bucket"},
	    "Queue": {"Type": "AWS::SQS::Queue"},
	    "Unrelated": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Fn::Sub": ["${Bucket}-${!Queue}", {"Bucket": "x"}]}}},
	    "Policy": {"Type": "AWS::S3::BucketPolicy", "Properties": {"Bucket": {"Ref": "Bucket"}}},
	    "Reader": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {
	      "B": {"Fn::GetAtt": ["Bucket", "Arn"]}, "Q": {"Fn::Sub": "queue ${Queue.Arn} in ${AWS::Region}"}}}}},
	    "Alarm": {"Type": "AWS::CloudWatch::Alarm", "DependsOn": ["Queue"], "Properties": {"Namespace": {"Fn::GetAtt": "Bucket.Arn"}}},
	    "Late": {"Type": "AWS::SNS::Topic", "DependsOn": "Queue"}
	  },
	  "Outputs": {
	    "BucketArn": {"Value": {"Fn::GetAtt": ["Bucket", "Arn"]}, "Export": {"Name": {"Fn::Sub": "${AWS::StackName}-BucketArn"}}},
	    "QueueUrl": {"Value": {"Ref": "Queue"}},
	    "Other": {"Value": "x", "Export": {"Name": "Other"}}
	  }
	}`
	const api = `{"Resources": {
	    "Handler": {"Type": "AWS::Lambda::Function", "Properties": {"Role": {"Fn::ImportValue": "Storage-BucketArn"}}},
	    "Other": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Fn::ImportValue": "Other"}}}
	  }}`
	dir := fs.NewDir(t, "asm",
		fs.WithFile("manifest.json", `{"artifacts": {
		  "Storage": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Storage.template.json"}},
		  "Api": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Api.template.json"}}}}`),
		fs.WithFile("Storage.template.json", storage), fs.WithFile("Api.template.json", api))
	a, err := Load(dir.Path())
	assert.NilError(t, err)
	st, ok := a.Stack("Storage")
	assert.Assert(t, ok)
	got, err := a.Referrers(st, []string{"Bucket", "Queue", "Gone"})
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []Referrer{
		{ID: "Alarm", Type: "AWS::CloudWatch::Alarm", On: []string{"Bucket", "Queue"}},
		{ID: "Late", Type: "AWS::SNS::Topic", On: []string{"Queue"}},
		{ID: "Policy", Type: "AWS::S3::BucketPolicy", On: []string{"Bucket"}},
		{ID: "Reader", Type: "AWS::Lambda::Function", On: []string{"Bucket", "Queue"}},
		{Stack: "Api", ID: "Handler", Type: "AWS::Lambda::Function", On: []string{"Bucket"}},
	})

	// Only what references the resources asked about.
	got, err = a.Referrers(st, []string{"Queue"})
	assert.NilError(t, err)
	assert.Equal(t, len(got), 3)
	assert.Equal(t, got[0].ID, "Alarm")
}

// Past the stacks the reduced picture shows, nothing more is read: a
// stack beyond them is only counted.
func TestPictureReadsOnlyWhatItShows(t *testing.T) {
	var d model.Diff
	for i := range blast.MaxReduced + 2 {
		d.Stacks = append(d.Stacks, model.StackDiff{Stack: fmt.Sprintf("S%02d", i), Changes: []model.ResourceChange{
			{LogicalID: "Q", ChangeType: model.ChangeDelete, ResourceType: "AWS::SQS::Queue"}}})
	}
	var read []string
	g, _, err := (*Assembly)(nil).Picture(d, nil, func(stack, _ string, deleted []string) []Referrer {
		read = append(read, stack)
		return []Referrer{{ID: "Policy", Type: "AWS::SQS::QueuePolicy", On: deleted}}
	}, nil)
	assert.NilError(t, err)
	assert.Equal(t, len(read), blast.MaxReduced, "the reduced picture's stacks are read, no more")
	assert.Equal(t, len(g.Stacks), blast.MaxStacks)
	assert.Equal(t, g.More, blast.MaxReduced+2-blast.MaxStacks)
	assert.Equal(t, len(g.Reduced.Stacks), blast.MaxReduced)
	assert.Equal(t, g.Reduced.More, 2)
	assert.DeepEqual(t, g.Stacks[0].Nodes[1], blast.Node{ID: "Policy", Type: "AWS::SQS::QueuePolicy", Kind: blast.Unchanged})
}

// A change that broadens access gets a picture as a replacement or a
// deletion does; an update or a creation alone does not.
func TestPictureFocus(t *testing.T) {
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "S", Changes: []model.ResourceChange{
		{LogicalID: "Role", ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Role"},
		{LogicalID: "New", ChangeType: model.ChangeCreate, ResourceType: "AWS::SNS::Topic"},
	}}}}
	g, _, err := (*Assembly)(nil).Picture(d, nil, nil, nil)
	assert.NilError(t, err)
	assert.Assert(t, g == nil)
	d.Stacks[0].Security = []model.SecurityChange{{LogicalID: "Role", ResourceType: "AWS::IAM::Role", Status: model.SecurityBroadening}}
	g, _, err = (*Assembly)(nil).Picture(d, nil, nil, nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, g.Stacks[0].Nodes, []blast.Node{{ID: "Role", Type: "AWS::IAM::Role", Kind: blast.Broaden}})
}
