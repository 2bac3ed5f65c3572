package gatecheck

import (
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

// reviewSource is the review lookup's view of the GitHub API: the
// repository being deployed, its types converted at this edge (the pull
// request is ghctx's, the one type both read).
type reviewSource struct {
	api         github.API
	owner, repo string
	warn        func(string)
}

var _ review.API = reviewSource{}

func (s reviewSource) GetPullRequest(ctx context.Context, number int) (ghctx.PullRequest, error) {
	return s.api.GetPullRequest(ctx, s.owner, s.repo, number)
}

func (s reviewSource) PullRequestsForCommit(ctx context.Context, sha string) ([]ghctx.PullRequest, error) {
	return s.api.PullRequestsForCommit(ctx, s.owner, s.repo, sha)
}

func (s reviewSource) CommitsBetween(ctx context.Context, base, head string) ([]string, error) {
	return s.api.CommitsBetween(ctx, s.owner, s.repo, base, head)
}

func (s reviewSource) QueueRefs(ctx context.Context, branch string) ([]review.Ref, error) {
	refs, err := s.api.MatchingRefs(ctx, s.owner, s.repo, "heads/gh-readonly-queue/"+branch+"/")
	return convert(refs, func(r github.Ref) review.Ref { return review.Ref(r) }), err
}

func (s reviewSource) ListLabelEvents(ctx context.Context, number int) ([]review.LabelEvent, error) {
	events, err := s.api.ListLabelEvents(ctx, s.owner, s.repo, number)
	return convert(events, func(e github.LabelEvent) review.LabelEvent { return review.LabelEvent(e) }), err
}

func (s reviewSource) ListReviews(ctx context.Context, number int) ([]review.PullReview, error) {
	reviews, err := s.api.ListReviews(ctx, s.owner, s.repo, number)
	return convert(reviews, func(rv github.Review) review.PullReview { return review.PullReview(rv) }), err
}

func (s reviewSource) Permission(ctx context.Context, login string) (string, error) {
	return s.api.CollaboratorPermission(ctx, s.owner, s.repo, login)
}

func (s reviewSource) Pushes(ctx context.Context, branch string) ([]review.Push, error) {
	pushes, err := s.api.ListPushes(ctx, s.owner, s.repo, branch)
	return convert(pushes, func(p github.Push) review.Push { return review.Push(p) }), err
}

func (s reviewSource) AutoMergeEvents(ctx context.Context, number int) ([]review.AutoMergeEvent, error) {
	events, err := s.api.ListAutoMergeEvents(ctx, s.owner, s.repo, number)
	return convert(events, func(e github.AutoMergeEvent) review.AutoMergeEvent { return review.AutoMergeEvent(e) }), err
}

func (s reviewSource) ListCheckRunsForRef(ctx context.Context, ref, name string) ([]review.CheckRun, error) {
	runs, err := s.api.ListCheckRunsForRef(ctx, s.owner, s.repo, ref, name)
	if err != nil {
		if github.IsForbidden(err) {
			return nil, fmt.Errorf("%w (the job needs checks: read)", err)
		}
		return nil, err
	}
	return convert(runs, func(cr github.CheckRunInfo) review.CheckRun { return review.CheckRun(cr) }), nil
}

// DiffComments are the sticky diff comments by author; a look-alike by
// anyone else is named in the log as a possible spoof.
func (s reviewSource) DiffComments(ctx context.Context, number int, label, author string) ([]review.Comment, error) {
	t := github.StickyTarget{Owner: s.owner, Repo: s.repo, Number: number, Kind: prcomment.KindDiff, Label: label, Author: author}
	ours, others, err := github.Ours(ctx, s.api, t)
	if err != nil {
		return nil, err
	}
	for _, w := range github.Spoofs(others, author) {
		s.warn(w + "; it is not trusted as a review")
	}
	return convert(ours, func(c github.Comment) review.Comment {
		return review.Comment{ID: c.ID, Body: c.Body, HTMLURL: c.HTMLURL}
	}), nil
}

// convert converts each of in: review's types are github's, field for
// field (a conversion compiles only while they stay alike), except
// review.Comment, which leaves out the sticky writer's state.
func convert[E, T any](in []E, f func(E) T) []T {
	out := make([]T, len(in))
	for i, e := range in {
		out[i] = f(e)
	}
	return out
}
