package gate

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// reviewFresh: the review was computed at the pull request's final head,
// so no commit merged unreviewed.
type reviewFresh struct{}

func (reviewFresh) about() about {
	return about{reason: reason.StaleReview, waivable: true, early: true, perReview: true}
}

func (reviewFresh) check(s *state) *finding {
	return s.eachFound(func(rv Review) *finding {
		if rv.ReviewedSHA != "" && rv.ReviewedSHA == rv.HeadSHA {
			return nil
		}
		reviewed := short(rv.ReviewedSHA)
		if reviewed == "" {
			reviewed = "an unknown commit"
		}
		return &finding{title: "Review is stale", msg: fmt.Sprintf("The diff on pull request #%d was reviewed at %s, but the pull request's final head is %s (the last commits were never reviewed)",
			rv.PR, reviewed, short(rv.HeadSHA))}
	})
}
