package redact

import (
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Drift redacts a drift report in place, fail closed: it places every
// drifted value (see placeDrift and Input.Placed) and decides why each
// position would drift if it ends up hidden (model.HiddenCase), then hides
// the state and AWS values at secret positions (both: the live value is
// the secret as much as the stored one), and every string by value,
// cdkd's groups this version does not know included. A side that is the
// "***" makes its position secret (NoEcho), assembly or not: cdkd stores a
// NoEcho value as "***" (state schema version 11), and a side redacted
// whole was a secret, so the other side is the live secret. The reporters
// hide such a change in Markdown; this hides it in the model, and so in
// the report JSON. Redacting the result again as Placed changes nothing.
// A value hidden by its position is first added to in.Set (see learnDrift), so the same value is hidden
// wherever else it shows; values of model.SecretUnknown positions are
// hidden but not learned: nothing says they are secret.
func Drift(d *model.Drift, in Input) Report {
	var rep Report
	if in.Placed {
		redactDrift(d, nil, in.Set, false)
		redactGroups(d, in.Set)
		return rep
	}
	rep.Unplaced = placeDrift(d, in.Positions, in.State)
	cases := hiddenCases(*d, in.Positions)
	redactDrift(d, in.Positions, in.Set, in.Leaves)
	applyHiddenCases(d, cases)
	redactGroups(d, in.Set)
	return rep
}

// redactDrift is Drift's redaction, after placement.
func redactDrift(d *model.Drift, pos Positions, set *secrets.Set, leaves bool) {
	learnDrift(d, pos, set, leaves)
	for i := range d.Stacks {
		s := &d.Stacks[i]
		st, known := lookup(pos, s.Stack, s.Region)
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			for c := range dr.Changes {
				ch := &dr.Changes[c] // its Secret is learnDrift's, refined below
				if state, aws, _, ok := leafDrift(leaves && known, st, dr.LogicalID, *ch); ok {
					ch.State, ch.AWS, ch.Leaves = state, aws, true
				}
				ch.Path = set.Redact(ch.Path)
				ch.State, ch.AWS = redactValue(ch.State, set), redactValue(ch.AWS, set)
				if ch.Secret == model.SecretNone && (ch.State.IsHidden() || ch.AWS.IsHidden()) {
					ch.Secret = hiddenKind(ch.Secret, ch.State, ch.AWS)
				}
				if ch.Secret != model.SecretNone && !ch.Leaves {
					ch.State, ch.AWS = hidePresent(ch.State), hidePresent(ch.AWS)
				}
			}
			redactResource(&dr.Resource, set)
		}
		for _, group := range [][]model.Resource{s.Clean, s.NotSupported, s.Skipped} {
			for r := range group {
				redactResource(&group[r], set)
			}
		}
		for r := range s.NotCompared {
			nc := &s.NotCompared[r]
			redactResource(&nc.Resource, set)
			nc.Reason = set.Redact(nc.Reason) // cdkd's own line
			redactToken(nc.Token, set)
		}
		s.Stack = set.Redact(s.Stack)
	}
}

// redactToken redacts a token case's paths and why (a state read's error).
func redactToken(c *model.TokenCase, set *secrets.Set) {
	if c == nil {
		return
	}
	for i := range c.Paths {
		c.Paths[i] = set.Redact(c.Paths[i])
	}
	c.Why = set.OneLine(c.Why)
}

func redactResource(r *model.Resource, set *secrets.Set) {
	r.LogicalID = set.Redact(r.LogicalID)
	r.Type = set.Redact(r.Type)
}

// learnDrift is redactDrift's first pass: it decides every change's secret
// kind as the second pass will, and learns the values at secret positions
// of the whole report before any of it is redacted by value.
func learnDrift(d *model.Drift, pos Positions, set *secrets.Set, leaves bool) {
	for i := range d.Stacks {
		s := &d.Stacks[i]
		st, known := lookup(pos, s.Stack, s.Region)
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			for c := range dr.Changes {
				ch := &dr.Changes[c]
				if known {
					ch.Secret = stronger(ch.Secret, st.SecretAt(dr.LogicalID, ch.Path))
				}
				if ch.Secret == model.SecretNone && (ch.State.IsHidden() || ch.AWS.IsHidden() ||
					redactedWhole(ch.State, set) || redactedWhole(ch.AWS, set)) {
					ch.Secret = hiddenKind(ch.Secret, ch.State, ch.AWS)
				}
				if learns(ch.Secret) {
					if _, _, ls, ok := leafDrift(leaves && known, st, dr.LogicalID, *ch); ok {
						learnLeaves(set, ls, s.Stack+"/"+dr.LogicalID)
						continue
					}
					where := s.Stack + "/" + dr.LogicalID + "." + ch.Path
					learn(set, ch.State, ch.Secret, where)
					learn(set, ch.AWS, ch.Secret, where)
				}
			}
		}
	}
}

// redactGroups redacts the names and paths of the groups of cdkd's report
// this version does not know; they hold no values.
func redactGroups(d *model.Drift, set *secrets.Set) {
	for i := range d.Stacks {
		for j := range d.Stacks[i].Groups {
			g := &d.Stacks[i].Groups[j]
			g.Name = set.Redact(g.Name)
			for k := range g.Entries {
				e := &g.Entries[k]
				e.LogicalID, e.Type = set.Redact(e.LogicalID), set.Redact(e.Type)
				for p := range e.Paths {
					e.Paths[p] = set.Redact(e.Paths[p])
				}
			}
		}
	}
}

// changeAt addresses one drifted change by index: redaction renames, it
// never reorders.
type changeAt struct{ stack, resource, change int }

// hiddenCases decides, before redaction (on cdkd's names and its state
// value), why each drifted position would drift if it ends up hidden: the
// seed says "by design" of one case only, a NoEcho custom-resource response
// stored as "***". The position's source comes from the assembly, the
// stored value from the state side of cdkd's report. A stack the assembly
// does not hold is undecided: nothing says which case it is.
func hiddenCases(d model.Drift, pos Positions) map[changeAt]model.HiddenCase {
	out := map[changeAt]model.HiddenCase{}
	for i, s := range d.Stacks {
		st, known := lookup(pos, s.Stack, s.Region)
		for j, dr := range s.Drifted {
			for k, c := range dr.Changes {
				at := changeAt{i, j, k}
				if !known {
					out[at] = model.HiddenUndecided
					continue
				}
				out[at] = hiddenCase(st, dr.LogicalID, c)
			}
		}
	}
	return out
}

// hiddenCase is one position's case, given its stack's template.
func hiddenCase(st assembly.Stack, logicalID string, c model.DriftChange) model.HiddenCase {
	switch st.SecretAt(logicalID, c.Path) {
	case model.SecretNoEcho:
		return model.HiddenNoEchoParameter
	case model.SecretReference:
		return model.HiddenSecretReference
	}
	if c.State.Text() == model.Hidden {
		if custom, known := st.CustomResponseAt(logicalID, c.Path); known && custom {
			return model.HiddenByDesign
		}
	}
	return model.HiddenUndecided
}

// applyHiddenCases writes the decided case into every change redaction
// hid; a change it did not hide has none.
func applyHiddenCases(d *model.Drift, cases map[changeAt]model.HiddenCase) {
	for i := range d.Stacks {
		for j := range d.Stacks[i].Drifted {
			for k := range d.Stacks[i].Drifted[j].Changes {
				c := &d.Stacks[i].Drifted[j].Changes[k]
				if c.Secret == model.SecretNone && c.State.Text() != model.Hidden && c.AWS.Text() != model.Hidden {
					c.HiddenCase = model.HiddenNone
					continue
				}
				c.HiddenCase = cases[changeAt{i, j, k}]
				if c.HiddenCase == model.HiddenNone {
					c.HiddenCase = model.HiddenUndecided
				}
			}
		}
	}
}
