package model

import (
	"encoding/json"
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
	assert.Assert(t, strings.HasPrefix(a.Digest(), DigestVersion+":"))
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

// hiddenDiff is a NoEcho change as redaction leaves it: both sides read the
// "***", and the tokens stand for what the "***" hides.
func hiddenDiff(old, new HiddenToken) Diff {
	p := prop("MasterUserPassword", HiddenValue(), HiddenValue(), false)
	p.Secret, p.OldToken, p.NewToken = SecretNoEcho, old, new
	out := OutputChange{Name: "Token", ChangeType: OutputModify, Old: HiddenValue(), New: HiddenValue(), Secret: SecretReference, OldToken: old, NewToken: new}
	return Diff{Stacks: []StackDiff{{Stack: "A", Region: "us-east-1",
		Changes:       []ResourceChange{{LogicalID: "Db", ChangeType: ChangeUpdate, ResourceType: "AWS::RDS::DBInstance", PropertyChanges: []PropertyChange{p}}},
		OutputChanges: []OutputChange{out}}}}
}

func TestDigestComparesWhatTheRedactionHides(t *testing.T) {
	v1, v2, v3 := FingerprintToken("aaaa"), FingerprintToken("bbbb"), FingerprintToken("cccc")
	reviewed := hiddenDiff(v1, v2).Digest()
	assert.Equal(t, hiddenDiff(v1, v2).Digest(), reviewed, "the same hidden values")
	for name, d := range map[string]Diff{
		"v1 → v3 behind the same ***": hiddenDiff(v1, v3),
		"another old value":           hiddenDiff(v3, v2),
		"sides swapped":               hiddenDiff(v2, v1),
		"a literal *** (no token)":    hiddenDiff("", ""),
		"a value left unverified":     hiddenDiff(v1, TokenUnverifiable),
	} {
		assert.Assert(t, d.Digest() != reviewed, name)
	}
	// The output's token alone counts too.
	d := hiddenDiff(v1, v2)
	d.Stacks[0].OutputChanges[0].NewToken = v3
	assert.Assert(t, d.Digest() != reviewed, "output token")
	// An attribute redacted by value carries a token as well.
	a, b := sampleDiff(), sampleDiff()
	a.Stacks[0].Changes[0].AttributeChanges = []AttributeChange{{Attribute: "DeletionPolicy", New: HiddenValue(), NewToken: v1}}
	b.Stacks[0].Changes[0].AttributeChanges = []AttributeChange{{Attribute: "DeletionPolicy", New: HiddenValue(), NewToken: v2}}
	assert.Assert(t, a.Digest() != b.Digest(), "attribute token")
}

func TestHiddenTokenIsNoValueSpelling(t *testing.T) {
	// A token is not confused with a value that spells it.
	withToken := hiddenDiff(FingerprintToken("aaaa"), "")
	spelled := hiddenDiff("", "")
	spelled.Stacks[0].Changes[0].PropertyChanges[0].Old = StringValue("m10:fp1:aaaa")
	assert.Assert(t, withToken.Digest() != spelled.Digest())
}

func TestHiddenTokensAreCounted(t *testing.T) {
	assert.Equal(t, hiddenDiff(FingerprintToken("a"), TokenUnverifiable).HiddenTokens(), TokenCounts{Tokens: 4, Unverifiable: 2})
	assert.Equal(t, sampleDiff().HiddenTokens(), TokenCounts{})
}

func TestHiddenTokensSurviveTheReportJSON(t *testing.T) {
	d := hiddenDiff(FingerprintToken("aaaa"), FingerprintToken("bbbb"))
	b, err := json.Marshal(d)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(b), `"newMask":"fp1:bbbb"`), string(b))
	var back Diff
	assert.NilError(t, json.Unmarshal(b, &back))
	assert.Equal(t, back.Digest(), d.Digest(), "an aggregate of report JSON digests as the run did")
}

func TestCompareListsAChangeBehindTheRedaction(t *testing.T) {
	c := Compare(hiddenDiff(FingerprintToken("a"), FingerprintToken("b")), hiddenDiff(FingerprintToken("a"), FingerprintToken("c")))
	assert.Equal(t, len(c.Items), 2, "the resource and the output")
	assert.Equal(t, len(c.Items[0].Paths), 1)
	assert.Equal(t, c.Items[0].Paths[0].Path, "MasterUserPassword")
}
