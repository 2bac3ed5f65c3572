package model

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestSecretCountsAndAnyChange(t *testing.T) {
	d := Diff{Stacks: []StackDiff{{
		Stack:        "Parent",
		SecretValues: []SecretValue{{Status: FingerprintUnchanged}, {Status: FingerprintUnknown}},
		Children: []StackDiff{{Stack: "Child", SecretValues: []SecretValue{
			{Status: FingerprintChanged, Effect: EffectUpdated},
			{Status: FingerprintChanged, Effect: EffectNotApplied},
		}}},
	}}}
	assert.DeepEqual(t, d.SecretCounts(), SecretCounts{Changed: 2, Unchanged: 1, Unknown: 1, NotApplied: 1})
	assert.Assert(t, !d.HasChanges(), "cdkd's own counts see nothing")
	assert.Assert(t, d.AnyChange(), "a changed secret value is a change")

	d.Stacks[0].Children[0].SecretValues = nil
	assert.Assert(t, !d.AnyChange(), "unchanged and unknown values are not changes")
	assert.Equal(t, d.Digest(), Diff{Stacks: []StackDiff{{Stack: "Parent", Children: []StackDiff{{Stack: "Child"}}}}}.Digest(),
		"the digest is the gate's business; fingerprints do not enter it yet")
}

// The NoEcho note keeps a resource only while some secret position of it
// is not told by a fingerprint: one unknown keeps it, all told drop it, one
// never listed stays.
func TestUntoldNoEchoReaders(t *testing.T) {
	vals := []SecretValue{
		{LogicalID: "Told", Path: "A", Status: FingerprintUnchanged},
		{LogicalID: "Told", Path: "B", Status: FingerprintChanged},
		{LogicalID: "Half", Path: "A", Status: FingerprintChanged},
		{LogicalID: "Half", Path: "B", Status: FingerprintUnknown},
	}
	readers := []string{"Told", "Half", "Unlisted"}
	assert.DeepEqual(t, UntoldNoEchoReaders(readers, vals), []string{"Half", "Unlisted"})
	assert.DeepEqual(t, readers, []string{"Told", "Half", "Unlisted"}) // the caller's list is not changed
	assert.Assert(t, UntoldNoEchoReaders([]string{"Told"}, vals) == nil, "none left is no note")
	assert.DeepEqual(t, UntoldNoEchoReaders(readers, nil), readers)
}

// A value counts as applied by an update of its resource under every
// effect but those that leave it behind and the one that rides, unknown, on
// an update for another change: only then is its fingerprint recorded.
func TestAppliedByUpdate(t *testing.T) {
	for e, want := range map[SecretEffect]bool{
		EffectNotApplied: false, EffectReferenceKept: false, EffectReferenceResourceUpdated: false,
		EffectUpdated: true, EffectReplaced: true, EffectInCdkdDiff: true, EffectHandlerRuns: true, EffectUnknown: true,
	} {
		assert.Equal(t, e.AppliedByUpdate(), want, e)
	}
}
