package model

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func sampleDiff() Diff {
	return Diff{Stacks: []StackDiff{
		{Stack: "B", Region: "us-east-1", Changes: []ResourceChange{
			{LogicalID: "Z", ChangeType: ChangeUpdate, ResourceType: "AWS::SNS::Topic",
				PropertyChanges: []PropertyChange{prop("DisplayName", StringValue("a"), StringValue("b"), false)}},
			{LogicalID: "Y", ChangeType: ChangeCreate, ResourceType: "AWS::SQS::Queue"},
		}},
		{Stack: "A", Region: "us-east-1", Changes: []ResourceChange{
			{LogicalID: "P", ChangeType: ChangeUpdate, ResourceType: "AWS::IAM::Policy",
				PropertyChanges: []PropertyChange{prop("PolicyDocument", JSONValue(`{"b":1,"a":2}`), JSONValue(`{"a":2,"b":3}`), false)}},
		}},
	}}
}

func TestDigestIgnoresOrderAndFormatting(t *testing.T) {
	a := sampleDiff()
	b := sampleDiff()
	// Same change set, other order and other JSON spelling.
	b.Stacks[0], b.Stacks[1] = b.Stacks[1], b.Stacks[0]
	b.Stacks[1].Changes[0], b.Stacks[1].Changes[1] = b.Stacks[1].Changes[1], b.Stacks[1].Changes[0]
	b.Stacks[0].Changes[0].PropertyChanges[0].Old = JSONValue("{ \"a\": 2,\n \"b\": 1 }")
	assert.Equal(t, a.Digest(), b.Digest())
	assert.Assert(t, strings.HasPrefix(a.Digest(), "v1:"))
}

func TestDigestIgnoresNoEchoNotes(t *testing.T) {
	a := sampleDiff()
	b := sampleDiff()
	b.Stacks[0].NoEchoReaders = []string{"R"}
	assert.Equal(t, a.Digest(), b.Digest())
}

func TestDigestChangesWithEveryPartOfTheChangeSet(t *testing.T) {
	base := sampleDiff().Digest()
	mutations := map[string]func(d *Diff){
		"value":       func(d *Diff) { d.Stacks[0].Changes[0].PropertyChanges[0].New = StringValue("c") },
		"absent→null": func(d *Diff) { d.Stacks[0].Changes[0].PropertyChanges[0].New = JSONValue("null") },
		"removed":     func(d *Diff) { d.Stacks[0].Changes[0].PropertyChanges[0].New = Value{} },
		"replacement": func(d *Diff) { d.Stacks[0].Changes[0].PropertyChanges[0].RequiresReplacement = true },
		"type":        func(d *Diff) { d.Stacks[0].Changes[1].ResourceType = "AWS::SNS::Topic" },
		"change type": func(d *Diff) { d.Stacks[0].Changes[1].ChangeType = ChangeDelete },
		"region":      func(d *Diff) { d.Stacks[1].Region = "eu-west-1" },
		"new output":  func(d *Diff) { d.Stacks[1].OutputChanges = []OutputChange{{Name: "O", ChangeType: OutputAdd}} },
		"nested":      func(d *Diff) { d.Stacks[1].Children = []StackDiff{{Stack: "C"}} },
		"extra stack": func(d *Diff) { d.Stacks = append(d.Stacks, StackDiff{Stack: "C"}) },
		"policy": func(d *Diff) {
			d.Stacks[0].Changes[0].AttributeChanges = []AttributeChange{{Attribute: "DeletionPolicy", New: StringValue("Retain")}}
		},
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			d := sampleDiff()
			mutate(&d)
			assert.Assert(t, d.Digest() != base)
		})
	}
}

func TestDigestDoesNotChangeTheDiff(t *testing.T) {
	d := sampleDiff()
	before := d.Stacks[0].Stack
	_ = d.Digest()
	assert.Equal(t, d.Stacks[0].Stack, before, "Digest works on a copy")
}

func TestDigestStringFastPathAgreesWithDecoding(t *testing.T) {
	plain := Diff{Stacks: []StackDiff{{Stack: "A", OutputChanges: []OutputChange{{Name: "O", New: JSONValue(`"héllo"`)}}}}}
	escaped := Diff{Stacks: []StackDiff{{Stack: "A", OutputChanges: []OutputChange{{Name: "O", New: JSONValue(`"h\u00e9llo"`)}}}}}
	assert.Equal(t, plain.Digest(), escaped.Digest(), "one string, two JSON spellings")
}
