package model

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func reviewedDiff() Diff {
	return Diff{Stacks: []StackDiff{
		{
			Stack: "StackA", Region: "us-east-1",
			Changes: []ResourceChange{
				{LogicalID: "Topic", ChangeType: ChangeUpdate, ResourceType: "AWS::SNS::Topic", PropertyChanges: []PropertyChange{
					{Path: "DisplayName", Old: StringValue("v1"), New: StringValue("v2")},
					{Path: "Tags", Old: JSONValue(`{"b":1, "a":2}`), New: JSONValue(`[]`)},
				}},
				{LogicalID: "Queue", ChangeType: ChangeUpdate, ResourceType: "AWS::SQS::Queue", PropertyChanges: []PropertyChange{
					{Path: "VisibilityTimeout", Old: JSONValue("30"), New: JSONValue("60")},
				}},
				{LogicalID: "Old", ChangeType: ChangeCreate, ResourceType: "AWS::SNS::Topic"},
			},
			OutputChanges: []OutputChange{{Name: "Url", ChangeType: OutputAdd, New: StringValue("https://a")}},
			Children: []StackDiff{{Stack: "Nested", Region: "us-east-1", Changes: []ResourceChange{
				{LogicalID: "Fn", ChangeType: ChangeUpdate, ResourceType: "AWS::Lambda::Function", AttributeChanges: []AttributeChange{
					{Attribute: "DeletionPolicy", Old: StringValue("Delete"), New: StringValue("Retain")},
				}},
			}}},
		},
		{Stack: "StackB", Region: "us-east-1", Changes: []ResourceChange{
			{LogicalID: "Param", ChangeType: ChangeDelete, ResourceType: "AWS::SSM::Parameter"},
		}},
	}}
}

func TestCompareIdentical(t *testing.T) {
	// Same content, other key order and formatting: not a difference.
	cur := reviewedDiff()
	cur.Stacks[0].Changes[0].PropertyChanges[1].Old = JSONValue(`{ "a": 2, "b": 1 }`)
	cur.Stacks[0].Changes[0], cur.Stacks[0].Changes[2] = cur.Stacks[0].Changes[2], cur.Stacks[0].Changes[0]
	cur.Stacks[0].NoEchoReaders = []string{"Unchanged"} // a note, not a change
	assert.Assert(t, Compare(reviewedDiff(), cur).Empty())
	assert.Assert(t, CompareFingerprints(reviewedDiff().Fingerprints(), cur).Empty())
	assert.Equal(t, reviewedDiff().Digest(), cur.Digest())
}

func TestCompare(t *testing.T) {
	cur := reviewedDiff()
	a := &cur.Stacks[0]
	a.Changes[0].PropertyChanges[0].New = StringValue("v3")                             // value changed
	a.Changes[1].PropertyChanges[0].RequiresReplacement = true                          // now replaces
	a.Changes[1].PropertyChanges = append(a.Changes[1].PropertyChanges, PropertyChange{ // path added
		Path: "QueueName", Old: StringValue("q1"), New: StringValue("q2"), RequiresReplacement: true})
	a.Changes = a.Changes[:2] // "Old" removed
	a.Changes = append(a.Changes, ResourceChange{LogicalID: "New", ChangeType: ChangeCreate, ResourceType: "AWS::SQS::Queue"})
	a.OutputChanges[0].New = StringValue("https://b")
	a.Children[0].Changes[0].AttributeChanges = nil // attribute removed
	cur.Stacks = append(cur.Stacks, StackDiff{Stack: "StackC", Region: "eu-west-1", Changes: []ResourceChange{
		{LogicalID: "Bucket", ChangeType: ChangeCreate, ResourceType: "AWS::S3::Bucket"}}})

	c := Compare(reviewedDiff(), cur)
	assert.Assert(t, c.Detailed)
	type row struct {
		Delta             DeltaKind
		Stack, Name       string
		Output            bool
		Reviewed, Current string
		Paths             []string
	}
	var got []row
	for _, it := range c.Items {
		r := row{Delta: it.Delta, Stack: it.Stack, Name: it.Name, Output: it.Output, Reviewed: it.Reviewed, Current: it.Current}
		for _, p := range it.Paths {
			r.Paths = append(r.Paths, string(p.Delta)+" "+p.Kind+" "+p.Path)
		}
		got = append(got, r)
	}
	assert.DeepEqual(t, got, []row{
		{Delta: DeltaAdded, Stack: "StackA", Name: "New", Current: "create"},
		{Delta: DeltaRemoved, Stack: "StackA", Name: "Old", Reviewed: "create"},
		{Delta: DeltaChanged, Stack: "StackA", Name: "Queue", Reviewed: "update", Current: "replace",
			Paths: []string{"added property QueueName", "changed property VisibilityTimeout"}},
		{Delta: DeltaChanged, Stack: "StackA", Name: "Topic", Reviewed: "update", Current: "update",
			Paths: []string{"changed property DisplayName"}},
		{Delta: DeltaChanged, Stack: "StackA", Name: "Url", Output: true, Reviewed: "add", Current: "add",
			Paths: []string{"changed value "}},
		{Delta: DeltaChanged, Stack: "StackA/Nested", Name: "Fn", Reviewed: "update", Current: "update",
			Paths: []string{"removed attribute DeletionPolicy"}},
		{Delta: DeltaAdded, Stack: "StackC", Name: "Bucket", Current: "create"},
	})
	topic := c.Items[3].Paths[0]
	assert.Equal(t, topic.Reviewed.New.Text(), "v2")
	assert.Equal(t, topic.Current.New.Text(), "v3")

	// The same, known only by fingerprints: which items, not how.
	f := CompareFingerprints(reviewedDiff().Fingerprints(), cur)
	assert.Assert(t, !f.Detailed)
	assert.Equal(t, len(f.Items), len(c.Items))
	for i := range f.Items {
		assert.Equal(t, f.Items[i].Name, c.Items[i].Name)
		assert.Equal(t, f.Items[i].Delta, c.Items[i].Delta)
		assert.Equal(t, f.Items[i].Reviewed, c.Items[i].Reviewed)
		assert.Equal(t, f.Items[i].Current, c.Items[i].Current)
		assert.Assert(t, is.Len(f.Items[i].Paths, 0))
	}
}

// A stack that disappears lists each of its items as removed.
func TestCompareStackRemoved(t *testing.T) {
	cur := reviewedDiff()
	cur.Stacks = cur.Stacks[:1]
	c := Compare(reviewedDiff(), cur)
	assert.Equal(t, len(c.Items), 1)
	assert.Equal(t, c.Items[0].Delta, DeltaRemoved)
	assert.Equal(t, c.Items[0].Stack, "StackB")
	assert.Equal(t, c.Items[0].Type, "AWS::SSM::Parameter")
	assert.Equal(t, c.Items[0].Reviewed, "delete")
}

// Two logical ids that both redacted to "***" stay two items.
func TestCompareDuplicateNames(t *testing.T) {
	mk := func(second string) Diff {
		return Diff{Stacks: []StackDiff{{Stack: "S", Changes: []ResourceChange{
			{LogicalID: "***", ChangeType: ChangeCreate, ResourceType: "AWS::SQS::Queue"},
			{LogicalID: "***", ChangeType: ChangeCreate, ResourceType: second},
		}}}}
	}
	assert.Assert(t, Compare(mk("AWS::SNS::Topic"), mk("AWS::SNS::Topic")).Empty())
	c := Compare(mk("AWS::SNS::Topic"), mk("AWS::S3::Bucket"))
	assert.Equal(t, len(c.Items), 1)
	assert.Equal(t, c.Items[0].Paths[0].Kind, PathType)
	assert.Equal(t, len(CompareFingerprints(mk("AWS::SNS::Topic").Fingerprints(), mk("AWS::S3::Bucket")).Items), 1)
}

func TestFingerprintsStable(t *testing.T) {
	f := reviewedDiff().Fingerprints()
	assert.Equal(t, len(f), 6)
	assert.DeepEqual(t, f, reviewedDiff().Fingerprints())
	for _, x := range f {
		assert.Equal(t, len(x.Hash), fingerprintHexLen)
	}
	assert.Equal(t, f[0].Stack, "StackA")
	assert.Equal(t, f[0].Name, "Old")
	assert.Equal(t, f[3].Output, true)
	assert.Equal(t, f[4].Stack, "StackA/Nested")
}
