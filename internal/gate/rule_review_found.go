package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// reviewFound: the deployed commit came from one pull request with a diff
// comment of the trusted identity that carries a digest (a failed diff is
// not a review).
type reviewFound struct{}

func (reviewFound) about() about {
	return about{reason: reason.NoReviewedDiff, waivable: true, early: true, perReview: true}
}

func (reviewFound) check(s *state) *finding {
	return s.eachReview(func(one Review) *finding { return notFound(s.p, one) })
}

// notFound is what is missing from one review, nil when nothing is.
func notFound(p Policy, rv Review) *finding {
	bot := p.Bot
	if bot == "" {
		bot = "the action's identity"
	}
	what := rv.Commit
	if what == "" {
		what = "this commit"
	}
	switch {
	case len(rv.Ambiguous) > 1:
		prs := make([]string, len(rv.Ambiguous))
		for i, n := range rv.Ambiguous {
			prs[i] = fmt.Sprintf("#%d", n)
		}
		return &finding{title: "Review is ambiguous", msg: fmt.Sprintf("%s belongs to several merged pull requests (%s), so whose review and labels count is ambiguous; deploy a commit that one pull request merged",
			strings.ToUpper(what[:1])+what[1:], strings.Join(prs, ", "))}
	case rv.PR == 0:
		msg := "No pull request was found for " + what
		if rv.Note != "" {
			msg += " (" + rv.Note + ")"
		}
		return &finding{title: "No reviewed diff", msg: msg + ", so there is no reviewed diff to compare with"}
	case !rv.Comment:
		return &finding{title: "No reviewed diff", msg: fmt.Sprintf("Pull request #%d has no diff comment written by %s", rv.PR, bot)}
	case rv.Digest == "":
		return &finding{title: "No reviewed diff", msg: fmt.Sprintf("The diff comment on pull request #%d reports a failed diff, which is not a review", rv.PR)}
	}
	return nil
}

// eachFound is eachReview over the reviews reviewFound accepts: the later
// rules about one review judge only a review that exists.
func (s *state) eachFound(check func(Review) *finding) *finding {
	return s.eachReview(func(one Review) *finding {
		if notFound(s.p, one) != nil {
			return nil
		}
		return check(one)
	})
}
