package app

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
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
	refused := tokenRefusals(d, warned, nil)
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

// cdkd 0.284.40's warning (sample 86) states both cases: a token that is a
// property's whole value is left unchanged by a revert, an embedded one
// overwritten. The template decides which applies; without it the warning
// stands.
func TestTokenRefusalsFollowTheTemplate(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "StackD", Region: "us-east-1", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "SecureTopic", Type: "AWS::SNS::Topic"}},
	}}}}
	warned := []model.ResolvedResource{{LogicalID: "SecureTopic", Type: "AWS::SNS::Topic", Reason: "… WOULD be overwritten"}}
	pos := func(whole bool) *assembly.Assembly {
		return &assembly.Assembly{Stacks: []assembly.Stack{{Name: "StackD", Region: "us-east-1", Positions: []assembly.Position{
			{Kind: assembly.KindResource, LogicalID: "SecureTopic", Path: "DisplayName", Source: model.SecretReference,
				Reference: "{{resolve:ssm-secure:/fixture/secure-value}}", Service: dynref.SSMSecure, Secure: true, Whole: whole},
		}}}}
	}
	for _, tc := range []struct {
		name    string
		asm     *assembly.Assembly
		refused int
	}{
		{"the whole value: left unchanged, not refused", pos(true), 0},
		{"embedded in a longer string: refused", pos(false), 1},
		{"no assembly: which case applies is unknown, refused", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &driftRun{Env: &Env{}}
			r.asm = tc.asm
			assert.Equal(t, len(tokenRefusals(d, warned, r.tokenWhole)), tc.refused)
		})
	}
}
