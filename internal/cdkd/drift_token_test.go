package cdkd

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// cdkd 0.284.40's warning (sample 86) states both cases: a token that is a
// property's whole value is left unchanged by a revert, an embedded one
// overwritten. The case decides; where no evidence places the token, the
// overwrite cannot be ruled out and the revert is refused.
func TestTokenRefusalsFollowTheCase(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "StackD", Region: "us-east-1", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "SecureTopic", Type: "AWS::SNS::Topic"}},
	}}}}
	warned := NotComparedLines(sample(t, "86-drift-stackD-ssmsecure-json").StderrTail)
	assert.Equal(t, len(warned), 1)
	w := []model.ResolvedResource{{LogicalID: warned[0].LogicalID, Type: warned[0].Type, Reason: warned[0].Reason}}
	for _, tc := range []struct {
		name    string
		c       model.TokenCase
		refused int
	}{
		{"the whole value: left unchanged, not refused", model.TokenCase{Placement: model.TokenWhole, Paths: []string{"DisplayName"}, Basis: model.TokenFromState}, 0},
		{"embedded in a longer string: refused", model.TokenCase{Placement: model.TokenEmbedded, Paths: []string{"DisplayName"}, Basis: model.TokenFromTemplate}, 1},
		{"no evidence: unknown, refused", model.TokenCase{Why: "no assembly was given"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TokenRefusals(d, w, func(stack, region, id string) model.TokenCase {
				assert.Equal(t, stack+"/"+region+"/"+id, "StackD/us-east-1/SecureTopic")
				return tc.c
			})
			assert.Equal(t, len(got), tc.refused)
			for _, r := range got {
				assert.DeepEqual(t, *r.Token, tc.c)
				assert.Equal(t, r.Outcome, model.ResolutionRefused)
			}
		})
	}
}

// Only unresolved-token entries get a case; the others are not about a token.
func TestPlaceTokens(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "StackD", Region: "us-east-1", NotCompared: []model.NotCompared{
		{Resource: model.Resource{LogicalID: "SecureTopic"}, Cause: model.CauseUnresolvedToken},
		{Resource: model.Resource{LogicalID: "XrParam"}, Cause: model.CauseRefused},
	}}}}
	PlaceTokens(&d, func(_, _, id string) model.TokenCase {
		return model.TokenCase{Placement: model.TokenWhole, Paths: []string{id}}
	})
	assert.DeepEqual(t, d.Stacks[0].NotCompared[0].Token, &model.TokenCase{Placement: model.TokenWhole, Paths: []string{"SecureTopic"}})
	assert.Assert(t, d.Stacks[0].NotCompared[1].Token == nil)
}

// A warned resource that did not drift is not touched by a revert: no
// refusal names it.
func TestTokenRefusalsOnlyOfDriftedResources(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "A", Drifted: []model.DriftedResource{{Resource: model.Resource{LogicalID: "Secure", Type: "AWS::SNS::Topic"}}}}}}
	warned := []model.ResolvedResource{{LogicalID: "Secure", Type: "AWS::SNS::Topic", Reason: "WOULD be overwritten"}, {LogicalID: "NotDrifted"}}
	got := TokenRefusals(d, warned, func(string, string, string) model.TokenCase { return model.TokenCase{Why: "no evidence"} })
	assert.Equal(t, len(got), 1)
	assert.Equal(t, got[0].Name(), "A/Secure")
}
