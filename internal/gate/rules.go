package gate

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// The gate is a list of rules, one type per file (rule_*.go), run in the
// order of rules below; the first refusal stops the deploy. Whether a
// finding refuses or only warns is decided here, in run, and nowhere else.

// rules are the gate's rules in the order they run: first whether the
// review can be trusted at all, then whether the change set is the one it
// shows, then what the inputs ask of that change set (destructive changes,
// approvals). Adding a rule is one file and one line here.
var rules = []rule{
	reviewFound{},
	reviewTrusted{},
	reviewFresh{},
	reviewRecorded{},
	tokensFingerprinted{},
	digestVersionSame{},
	fingerprintKeySame{},
	reviewsAgree{},
	diffReviewed{},
	createsBound{},
	destructiveAllowed{},
	approvalsGiven{},
	securityApproved{},
}

// A rule is one check of the gate.
type rule interface {
	// about is the rule's failure reason and how it applies.
	about() about
	// check is what the rule finds wrong, nil when nothing.
	check(s *state) *finding
}

// about is what the runner needs to know of a rule.
type about struct {
	// reason is the failure reason its refusal gives (its exit code is
	// reason's).
	reason reason.Reason
	// waivable: with require-reviewed-diff: false the finding is a warning
	// and the deploy goes on (a rule about the review and the change set
	// it shows). A rule that is not waivable always refuses (destructive
	// changes, approvals: the inputs asked for them outright).
	waivable bool
	// early: the rule reads the review alone, so a deploy that requires a
	// reviewed diff runs it before computing the change set.
	early bool
	// perReview: the rule judges each pull request's review on its own, so
	// a merge queue's report (Standings) names each one it finds wrong.
	perReview bool
}

// finding is what a rule found wrong.
type finding struct {
	// title is the check run's headline when the finding refuses.
	title string
	// msg says what is wrong. A waivable rule's is a sentence without its
	// end (run ends it with ": not deploying." or "; deploying anyway ...");
	// another rule's is its whole refusal.
	msg string
	// hint, when set, says what to do, after a refusal.
	hint string
}

// state is what the rules read, and the decision they add to.
type state struct {
	p   Policy
	rv  Review
	cur *Current // nil when the change set is not computed yet
	d   *Decision
	// unreviewed counts the waivable findings: with any, what deploys is
	// not the reviewed change set as far as the gate can tell.
	unreviewed int
	cov        *Coverage
	whole      bool
	covDone    bool
}

// run applies rs in order and decides, for each finding, whether it
// refuses (true: s.d says why) or only warns.
func (s *state) run(rs []rule) bool {
	for _, r := range rs {
		f := r.check(s)
		if f == nil {
			continue
		}
		a := r.about()
		if !a.waivable {
			s.d.Reason, s.d.Title, s.d.Message = a.reason, f.title, strings.TrimSpace(f.msg+" "+f.hint)
			return true
		}
		s.unreviewed++
		if s.p.RequireReviewedDiff {
			s.d.Reason, s.d.Title, s.d.Message = a.reason, f.title, strings.TrimSpace(f.msg+": not deploying. "+f.hint)
			return true
		}
		s.d.Warnings = append(s.d.Warnings, f.msg+"; deploying anyway because require-reviewed-diff is false")
	}
	return false
}

// selected are the rules about says yes to, in order.
func selected(yes func(about) bool) []rule {
	var out []rule
	for _, r := range rules {
		if yes(r.about()) {
			out = append(out, r)
		}
	}
	return out
}

// usable: the review has a pull request and a digest to compare with.
func (s *state) usable() bool { return s.rv.PR != 0 && s.rv.Comment && s.rv.Digest != "" }

// sameDigest: the change set is exactly the primary review's.
func (s *state) sameDigest() bool { return s.rv.Digest == s.cur.Digest }

// coverage is the current change set against every reviewed one, computed
// once; whole is false when one review is not stored whole (only its
// fingerprints), and the digest alone then decides.
func (s *state) coverage() (Coverage, bool) {
	if !s.covDone {
		cov, whole := coverage(s.rv, s.cur.Diff)
		s.cov, s.whole, s.covDone = &cov, whole, true
	}
	return *s.cov, s.whole
}

// judged: the coverage rule applies (the digest is not the reviewed one,
// or a batch's reviews count).
func (s *state) judged() bool {
	return s.usable() && (!s.sameDigest() || len(s.rv.Batch) > 0)
}

// covered: not the reviewed change set, but only reviewed changes.
func (s *state) covered() bool {
	if !s.judged() {
		return false
	}
	cov, whole := s.coverage()
	return whole && cov.Covered()
}

// coveredBy maps each change to the pull requests whose review holds it,
// when covered (nil otherwise: the primary review's labels count).
func (s *state) coveredBy() map[string][]int {
	if !s.covered() {
		return nil
	}
	cov, _ := s.coverage()
	return cov.By
}

// eachReview is the first of the reviews (the pull request's, then its
// batch's) that check finds wrong.
func (s *state) eachReview(check func(Review) *finding) *finding {
	for _, one := range s.rv.all() {
		if f := check(one); f != nil {
			return f
		}
	}
	return nil
}
