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
