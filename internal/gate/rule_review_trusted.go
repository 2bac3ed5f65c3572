package gate

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// reviewTrusted: the diff comment is the one the diff's check run vouches
// for (a check run cannot be edited in GitHub's UI, a comment can), with
// the digest it recorded, and unaltered since.
type reviewTrusted struct{}

func (reviewTrusted) about() about {
	return about{reason: reason.NoReviewedDiff, waivable: true, early: true, perReview: true}
}

func (reviewTrusted) check(s *state) *finding { return s.eachFound(untrustedReview) }

// untrusted is the title of a refusal whose review was altered.
const untrusted = "Review cannot be trusted"

func untrustedReview(rv Review) *finding {
	switch {
	case rv.Record != nil && rv.Record.Digest == "":
		return &finding{title: untrusted, msg: fmt.Sprintf("The newest %q check run on %s (%s) records no reviewed digest (a failed diff, or one run by an older cdkd-action), "+
			"so the diff comment on pull request #%d cannot be verified; re-run the pull request's diff", rv.Record.Name, short(rv.ReviewedSHA), rv.Record.URL, rv.PR)}
	case rv.Record != nil && rv.Record.CommentID == 0:
		return &finding{title: untrusted, msg: fmt.Sprintf("The newest %q check run on %s (%s) names no diff comment it vouches for (a diff run by an older cdkd-action, or one that could not write its comment), "+
			"so no comment on pull request #%d can be trusted as the review; re-run the pull request's diff", rv.Record.Name, short(rv.ReviewedSHA), rv.Record.URL, rv.PR)}
	case rv.Record != nil && rv.Record.Digest != rv.Digest:
		return &finding{title: untrusted, msg: fmt.Sprintf("The digest in the diff comment on pull request #%d (%s) is not the one the diff check run recorded (%s, %q on %s, %s): "+
			"the comment may have been edited", rv.PR, shortDigest(rv.Digest), shortDigest(rv.Record.Digest), rv.Record.Name, short(rv.ReviewedSHA), rv.Record.URL)}
	case rv.Unreadable != "":
		// Nothing says anyone altered it: it could not be kept, read or
		// rendered again here.
		return &finding{title: "Review cannot be verified", msg: fmt.Sprintf("The reviewed change set of pull request #%d cannot be verified: %s", rv.PR, rv.Unreadable)}
	case rv.Tampered != "":
		return &finding{title: untrusted, msg: fmt.Sprintf("The diff comment on pull request #%d was altered after the diff wrote it (%s)", rv.PR, rv.Tampered)}
	}
	return nil
}
