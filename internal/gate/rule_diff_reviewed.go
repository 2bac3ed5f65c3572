package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// diffReviewed: the change set is the reviewed one (its digest), or every
// change in it is one a merged pull request's review holds identically
// (the coverage rule of cover.go); the rest is in place already.
type diffReviewed struct{}

func (diffReviewed) about() about {
	return about{reason: reason.DiffChanged, waivable: true}
}

func (diffReviewed) check(s *state) *finding {
	if !s.judged() {
		return nil
	}
	rv, cur, d := s.rv, s.cur, s.d
	cov, whole := s.coverage()
	switch {
	case whole && cov.Covered():
		if len(cov.AlreadyDeployed) > 0 {
			d.Notes = append(d.Notes, "Reviewed and already in place, so not deployed again: "+strings.Join(cov.AlreadyDeployed, "; ")+".")
		}
		return nil
	case whole && len(cov.Contradictions) > 0:
		return nil // reviewsAgree's
	case s.sameDigest():
		return nil // exactly the pull request's own review: the batch adds nothing
	}
	if len(rv.Batch) == 0 {
		d.Comparison, d.ComparisonNote = compare(rv.ChangeSet, cur.Diff)
	} else {
		// One review's change set is not what the others reviewed: listed
		// against it, their changes would read as new.
		d.ComparisonNote = "Several pull requests' reviews count here, so the change set is not listed against one of them; the changes no review holds as they are now are named above."
	}
	// Short digests: a message that printed the current one whole would
	// hand anyone who can edit the comment the value to paste.
	msg := fmt.Sprintf("The change set differs from the one reviewed in %s (reviewed digest %s, now %s)", reviewedIn(rv), shortDigest(rv.Digest), shortDigest(cur.Digest))
	if whole && len(cov.Unreviewed) > 0 {
		msg += "; not reviewed: " + strings.Join(cov.Unreviewed, "; ")
		d.Differs = cov.Differs
	}
	if !strings.HasPrefix(rv.Digest, digestVersion(cur.Digest)) {
		msg += "; the digests were computed by different versions of cdkd-action"
	}
	msg += cdkdChange(rv.CdkdVersion, cur.CdkdVersion)
	if extra := uncovered(rv.ChangeSet, cur.Diff); len(extra) > 0 && len(rv.Batch) == 0 {
		msg += fmt.Sprintf("; the deploy would touch %s, which the review did not cover", strings.Join(extra, ", "))
	}
	return &finding{title: "Diff changed since review", msg: msg}
}
