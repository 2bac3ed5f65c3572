package gate

import (
	"cmp"
	"slices"
	"strings"
)

// Standing is how one pull request's review stands, for a report that names
// every pull request (a merge queue's check), not only the first problem.
type Standing struct {
	PR int
	// Reason and Problem say what is wrong with its review under the rules
	// a deploy applies ("" when nothing is); Problem is one sentence.
	Reason  Reason
	Problem string
	// ReviewedSHA is the head its diff was computed at.
	ReviewedSHA string
}

// Standings lists the pull request of rv and those of its batch, sorted,
// each with what the gate's review rules (a missing, failed, altered,
// unverifiable or stale review) find wrong with it, else the changes of d's
// change set its review no longer covers (d refused them).
func Standings(p Policy, rv Review, d Decision) []Standing {
	var out []Standing
	for _, one := range rv.all() {
		if one.PR == 0 {
			continue
		}
		s := Standing{PR: one.PR, ReviewedSHA: one.ReviewedSHA}
		if r, _, msg, ok := reviewIssue(p, one); ok {
			s.Reason, s.Problem = r, msg+"."
		} else if one.Record == nil && one.Comment && one.Digest != "" && one.ReviewedSHA != "" {
			s.Reason, s.Problem = NoReviewedDiff, unrecorded(one)+"."
		} else if what := d.Differs[one.PR]; len(what) > 0 && !d.Deploy {
			s.Reason, s.Problem = d.Reason, "Its review no longer covers what would deploy: "+strings.Join(what, "; ")+"."
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Standing) int { return cmp.Compare(a.PR, b.PR) })
	return out
}
