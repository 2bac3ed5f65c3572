package app

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// cdkd reverts whole stacks: a refused resource keeps its stack (and only
// its stack) from being reverted, and every drifted resource there says so.
func TestRefuseStacks(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{
		{Stack: "A", Drifted: []model.DriftedResource{{Resource: model.Resource{LogicalID: "Secure", Type: "AWS::SNS::Topic"}}, {Resource: model.Resource{LogicalID: "Other"}}}},
		{Stack: "B", Drifted: []model.DriftedResource{{Resource: model.Resource{LogicalID: "Bucket"}}}},
		{Stack: "C"},
	}}
	warned := []model.ResolvedResource{{LogicalID: "Secure", Type: "AWS::SNS::Topic", Reason: "WOULD be overwritten"}, {LogicalID: "NotDrifted"}}
	unknown := func(string, string, string) model.TokenCase { return model.TokenCase{Why: "no evidence"} }
	refused := cdkd.TokenRefusals(d, warned, unknown)
	assert.Equal(t, len(refused), 1, "a resource that did not drift is not touched by a revert")
	all, keep := refuseStacks(d, refused)
	assert.DeepEqual(t, keep, []string{"B"})
	got := map[string]model.ResolutionOutcome{}
	for _, r := range all {
		got[r.Name()] = r.Outcome
	}
	assert.DeepEqual(t, got, map[string]model.ResolutionOutcome{"A/Secure": model.ResolutionRefused, "A/Other": model.ResolutionRefused})

	// Every drifted resource no line names is unreported, never resolved.
	out := outcomes(d, []model.ResolvedResource{{Stack: "B", LogicalID: "Bucket", Outcome: model.ResolutionReverted}}, all)
	assert.Equal(t, len(out), 1, "B/Bucket from cdkd's line; A's were refused")
	out = outcomes(d, nil, nil)
	for _, r := range out {
		assert.Equal(t, r.Outcome, model.ResolutionUnreported)
	}
	assert.Equal(t, len(out), 3)
}
