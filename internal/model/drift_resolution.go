package model

import "slices"

// ResolutionOutcome is what `cdkd drift --accept|--revert` did to one
// resource, as cdkd's own lines say.
type ResolutionOutcome string

const (
	// ResolutionAccepted: --accept wrote the live values into state.
	ResolutionAccepted ResolutionOutcome = "accepted"
	// ResolutionReverted: --revert pushed state's values to AWS (cdkd's ✓).
	ResolutionReverted ResolutionOutcome = "reverted"
	// ResolutionSkipped: cdkd refused a property and warned by name (SKIPPED):
	// the drift is still reported on the next run.
	ResolutionSkipped ResolutionOutcome = "skipped"
	// ResolutionFailed: the update failed (cdkd's ✗ and its error).
	ResolutionFailed ResolutionOutcome = "failed"
	// ResolutionUpdateNotSupported: the type cannot be updated in place (cdkd's
	// ⊘); the fix is `cdkd deploy --replace`.
	ResolutionUpdateNotSupported ResolutionOutcome = "updateNotSupported"
	// ResolutionNotCompared: cdkd did not compare it, so did not resolve it.
	ResolutionNotCompared ResolutionOutcome = "notCompared"
	// ResolutionRefused: cdkd-action did not let cdkd revert it: the dry-run
	// plan says a live value would be overwritten with a token literal.
	ResolutionRefused ResolutionOutcome = "refused"
	// ResolutionUnreported: drifted, but no line of cdkd's says what happened
	// to it.
	ResolutionUnreported ResolutionOutcome = "unreported"
)

// ResolvedResource is one resource of a resolution and what became of it.
type ResolvedResource struct {
	Stack     string            `json:"stack,omitempty"`
	LogicalID string            `json:"logicalId"`
	Type      string            `json:"type,omitempty"`
	Outcome   ResolutionOutcome `json:"outcome"`
	// Reason is cdkd's own words (a skip's, an error's), or the action's
	// for a refusal. Like every cdkd line it is redacted before it is kept.
	Reason string `json:"reason,omitempty"`
	// Token is, for a revert refused over an ssm-secure token, where the
	// token sits (see DecideTokenCase).
	Token *TokenCase `json:"ssmSecure,omitempty"`
}

// Name is "Stack/LogicalId", or the logical id alone when cdkd named no stack.
func (r ResolvedResource) Name() string {
	if r.Stack == "" {
		return r.LogicalID
	}
	return r.Stack + "/" + r.LogicalID
}

// ResolutionCounts counts resources by outcome.
func ResolutionCounts(rs []ResolvedResource) map[ResolutionOutcome]int {
	out := map[ResolutionOutcome]int{}
	for _, r := range rs {
		out[r.Outcome]++
	}
	return out
}

// HiddenCase says why a hidden drifted position drifts, decided from the
// assembly (the position's source) and the state record (its stored value).
type HiddenCase string

const (
	// HiddenNone: the position is not hidden.
	HiddenNone HiddenCase = ""
	// HiddenByDesign: the state value is a NoEcho custom-resource response,
	// stored as "***": it drifts on every run by design.
	HiddenByDesign HiddenCase = "byDesign"
	// HiddenNoEchoParameter: the position reads a NoEcho parameter; a
	// difference is a real out-of-band change.
	HiddenNoEchoParameter HiddenCase = "noEchoParameter"
	// HiddenSecretReference: the position holds a dynamic reference to a
	// secret; a difference is a rotated secret or an out-of-band change.
	HiddenSecretReference HiddenCase = "secretReference"
	// HiddenUndecided: hidden, but nothing says which case it is.
	HiddenUndecided HiddenCase = "undecided"
)

// DriftGroup is a group of resources cdkd's JSON carries that this version
// does not know (the seeds' cdkd reports hidden positions in a group of
// their own). It is shown, never counted: it does not change the status.
type DriftGroup struct {
	Name    string       `json:"name"`
	Entries []GroupEntry `json:"entries"`
}

// GroupEntry is one resource of such a group: names and paths only, never
// a value.
type GroupEntry struct {
	Resource
	Paths []string `json:"paths,omitempty"`
}

// RefuseWholeStacks: cdkd reverts whole stacks, so a refused resource
// keeps its whole stack from being reverted. It returns every drifted
// resource of those stacks as refused, and the stacks that may still be
// reverted.
func RefuseWholeStacks(d Drift, refused []ResolvedResource) ([]ResolvedResource, []string) {
	var stacks []string
	for _, x := range refused {
		if !slices.Contains(stacks, x.Stack) {
			stacks = append(stacks, x.Stack)
		}
	}
	out := refused
	var keep []string
	for _, s := range d.Stacks {
		if !slices.Contains(stacks, s.Stack) {
			if len(s.Drifted) > 0 && !slices.Contains(keep, s.Stack) {
				keep = append(keep, s.Stack)
			}
			continue
		}
		for _, dr := range s.Drifted {
			if slices.ContainsFunc(refused, func(x ResolvedResource) bool { return x.Stack == s.Stack && x.LogicalID == dr.LogicalID }) {
				continue
			}
			out = append(out, ResolvedResource{Stack: s.Stack, LogicalID: dr.LogicalID, Type: dr.Type, Outcome: ResolutionRefused,
				Reason: "not reverted: cdkd reverts a whole stack, and this stack holds a resource whose revert was refused"})
		}
	}
	return out, keep
}

// WithUnreported is cdkd's per-resource lines of a resolution, then every
// drifted resource no line names (and that was not refused): drifted, but
// cdkd did not say (ResolutionUnreported).
func WithUnreported(d Drift, lines, refused []ResolvedResource) []ResolvedResource {
	out := slices.Clone(lines)
	named := func(stack, id string) bool {
		match := func(x ResolvedResource) bool { return x.LogicalID == id && (x.Stack == "" || x.Stack == stack) }
		return slices.ContainsFunc(lines, match) || slices.ContainsFunc(refused, match)
	}
	for _, s := range d.Stacks {
		for _, dr := range s.Drifted {
			if !named(s.Stack, dr.LogicalID) {
				out = append(out, ResolvedResource{Stack: s.Stack, LogicalID: dr.LogicalID, Type: dr.Type, Outcome: ResolutionUnreported})
			}
		}
	}
	return out
}
