package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// digestVersionSame: the review's digest is of this cdkd-action's digest
// version, which covers the hidden values as this one does.
type digestVersionSame struct{}

func (digestVersionSame) about() about {
	return about{reason: reason.StaleReview, waivable: true}
}

func (digestVersionSame) check(s *state) *finding {
	rv, cur := s.rv, s.cur
	if !s.usable() || digestVersion(rv.Digest) == digestVersion(cur.Digest) {
		return nil
	}
	return &finding{title: "Review is stale", msg: fmt.Sprintf("The review of pull request #%d has a digest of another version of cdkd-action (%s, this one computes %s), which does not cover the hidden values as this one does, so it cannot vouch for the change set; re-run the pull request's diff",
		rv.PR, strings.TrimSuffix(digestVersion(rv.Digest), ":"), strings.TrimSuffix(digestVersion(cur.Digest), ":"))}
}

// digestVersion is the version prefix of digest d, with its colon.
func digestVersion(d string) string {
	v, _, _ := strings.Cut(d, ":")
	return v + ":"
}
