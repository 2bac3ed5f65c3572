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
// each with what the gate's rules about one review (a missing, failed,
// altered, unrecorded or stale review) find wrong with it, else the changes
// of d's change set its review no longer covers, or the approval it lacks
// (d refused them).
func Standings(p Policy, rv Review, d Decision) []Standing {
	var out []Standing
	for _, one := range rv.all() {
		if one.PR == 0 {
			continue
		}
		s := Standing{PR: one.PR, ReviewedSHA: one.ReviewedSHA}
		if r, f := reviewAlone(p, one); f != nil {
			s.Reason, s.Problem = r, f.msg+"."
		} else if what := d.Differs[one.PR]; len(what) > 0 && !d.Deploy {
			s.Reason, s.Problem = d.Reason, "Its review no longer covers what would deploy: "+strings.Join(what, "; ")+"."
		} else if why := d.Lacking[one.PR]; why != "" && !d.Deploy {
			s.Reason, s.Problem = d.Reason, why+"."
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Standing) int { return cmp.Compare(a.PR, b.PR) })
	return out
}

// reviewAlone is the first finding of the rules about one review on rv
// alone, and its reason.
func reviewAlone(p Policy, rv Review) (Reason, *finding) {
	rv.Batch = nil
	s := &state{p: p, rv: rv}
	for _, r := range selected(func(a about) bool { return a.perReview }) {
		if f := r.check(s); f != nil {
			return r.about().reason, f
		}
	}
	return "", nil
}
