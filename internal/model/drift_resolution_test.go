package model

import (
	"testing"

	"gotest.tools/v3/assert"
)

// cdkd reverts whole stacks: a refused resource keeps its stack (and only
// its stack) from being reverted, and every drifted resource there says so.
func TestRefuseWholeStacks(t *testing.T) {
	d := Drift{Stacks: []StackDrift{
		{Stack: "A", Drifted: []DriftedResource{{Resource: Resource{LogicalID: "Secure", Type: "AWS::SNS::Topic"}}, {Resource: Resource{LogicalID: "Other"}}}},
		{Stack: "B", Drifted: []DriftedResource{{Resource: Resource{LogicalID: "Bucket"}}}},
		{Stack: "C"},
	}}
	refused := []ResolvedResource{{Stack: "A", LogicalID: "Secure", Type: "AWS::SNS::Topic", Outcome: ResolutionRefused, Reason: "cdkd: WOULD be overwritten"}}
	all, keep := RefuseWholeStacks(d, refused)
	assert.DeepEqual(t, keep, []string{"B"})
	got := map[string]ResolutionOutcome{}
	for _, r := range all {
		got[r.Name()] = r.Outcome
	}
	assert.DeepEqual(t, got, map[string]ResolutionOutcome{"A/Secure": ResolutionRefused, "A/Other": ResolutionRefused})
	assert.Equal(t, all[0].Reason, "cdkd: WOULD be overwritten", "the refused resource keeps its own reason")
	assert.Equal(t, all[1].Reason, "not reverted: cdkd reverts a whole stack, and this stack holds a resource whose revert was refused")

	// Every drifted resource no line names is unreported, never resolved.
	out := WithUnreported(d, []ResolvedResource{{Stack: "B", LogicalID: "Bucket", Outcome: ResolutionReverted}}, all)
	assert.Equal(t, len(out), 1, "B/Bucket from cdkd's line; A's were refused")
	out = WithUnreported(d, nil, nil)
	for _, r := range out {
		assert.Equal(t, r.Outcome, ResolutionUnreported)
	}
	assert.Equal(t, len(out), 3)
}

func TestResolutionUnsuccessful(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  DriftResolution
		want bool
	}{
		{name: "every resource resolved", res: DriftResolution{Mode: "revert", Outcomes: []ResolvedResource{{LogicalID: "A", Outcome: ResolutionReverted}}}},
		{name: "the second detection failed: not the resolution's failure", res: DriftResolution{Mode: "accept", AfterError: "boom"}},
		{name: "the run failed", res: DriftResolution{Mode: "accept", Error: "boom"}, want: true},
		{name: "cdkd named an unresolved resource", res: DriftResolution{Mode: "revert", Failed: []ResolutionFailure{{Line: "x"}}}, want: true},
		{name: "a revert was refused", res: DriftResolution{Mode: "revert", Outcomes: []ResolvedResource{{LogicalID: "A", Outcome: ResolutionRefused}}}, want: true},
	} {
		assert.Equal(t, tc.res.Unsuccessful(), tc.want, tc.name)
	}
}
