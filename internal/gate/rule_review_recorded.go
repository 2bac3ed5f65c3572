package gate

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// reviewRecorded: a diff check run vouches for the review. The comment
// alone is not a review, since anyone with write access can edit it and
// keep its author; without the check run the diff recorded, nothing
// vouches for the digest in it.
type reviewRecorded struct{}

func (reviewRecorded) about() about {
	return about{reason: reason.NoReviewedDiff, waivable: true, perReview: true}
}

func (reviewRecorded) check(s *state) *finding {
	return s.eachFound(func(rv Review) *finding {
		if rv.ReviewedSHA == "" || rv.Record != nil {
			return nil
		}
		return &finding{title: "Review cannot be verified", msg: unrecorded(rv),
			hint: "Run the diff with check-run: true, or set require-reviewed-diff: false."}
	})
}

// unrecorded says that no check run records the review rv.
func unrecorded(rv Review) string {
	return fmt.Sprintf("No diff check run on %s records the review of pull request #%d (the diff ran with check-run: false, could not create its check run, or was cancelled), "+
		"so the digest in its comment cannot be verified", short(rv.ReviewedSHA), rv.PR)
}
