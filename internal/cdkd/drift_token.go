package cdkd

import "github.com/cdkd-action/cdkd-action/internal/model"

// TokenCaseOf decides, for one resource, where its ssm-secure tokens sit
// (model.DecideTokenCase over the state record and the template).
type TokenCaseOf func(stack, region, logicalID string) model.TokenCase

// PlaceTokens gives each resource cdkd did not compare for an unresolved
// ssm-secure token the case that applies to it: cdkd 0.284.40's line states
// both (a whole-value token is left alone by a revert, an embedded one is
// overwritten), and the report says only the one the evidence shows.
func PlaceTokens(d *model.Drift, caseOf TokenCaseOf) {
	for i := range d.Stacks {
		s := &d.Stacks[i]
		for j := range s.NotCompared {
			nc := &s.NotCompared[j]
			if nc.Cause != model.CauseUnresolvedToken {
				continue
			}
			c := caseOf(s.Stack, s.Region, nc.LogicalID)
			nc.Token = &c
		}
	}
}

// TokenRefusals are the drifted resources a revert would write back with a
// token literal, from the warnings cdkd printed (its plan's, and its
// detection's line about an ssm-secure token, which states both cases). A
// resource that did not drift is not touched by a revert, so its warning
// refuses nothing; one whose tokens are all their property's whole value is
// left unchanged by a revert (the seed: "If the property's whole value is
// the token, the live value is left unchanged"), so it is not refused
// either. An embedded token, or one no evidence places, is refused: the
// overwrite cannot be ruled out.
func TokenRefusals(d model.Drift, warned []model.ResolvedResource, caseOf TokenCaseOf) []model.ResolvedResource {
	var out []model.ResolvedResource
	for _, s := range d.Stacks {
		for _, dr := range s.Drifted {
			for _, w := range warned {
				if w.LogicalID != dr.LogicalID || (w.Stack != "" && w.Stack != s.Stack) || (w.Type != "" && w.Type != dr.Type) {
					continue
				}
				c := caseOf(s.Stack, s.Region, dr.LogicalID)
				if c.Placement == model.TokenWhole {
					break
				}
				out = append(out, model.ResolvedResource{Stack: s.Stack, LogicalID: dr.LogicalID, Type: dr.Type, Outcome: model.ResolutionRefused,
					Reason: "cdkd: " + w.Reason, Token: &c})
				break
			}
		}
	}
	return out
}
