package gatecheck

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/review"
)

// reviewSource is the review lookup's view of the GitHub API: the
// repository being deployed, its types converted at this edge.
type reviewSource struct {
	api         github.API
	owner, repo string
	warn        func(string)
}

var _ review.API = reviewSource{}

func (s reviewSource) GetPullRequest(ctx context.Context, number int) (review.PullRequest, error) {
	pr, err := s.api.GetPullRequest(ctx, s.owner, s.repo, number)
	return pullRequestOf(pr), err
}

func (s reviewSource) PullRequestsForCommit(ctx context.Context, sha string) ([]review.PullRequest, error) {
	prs, err := s.api.PullRequestsForCommit(ctx, s.owner, s.repo, sha)
	out := make([]review.PullRequest, len(prs))
	for i, pr := range prs {
		out[i] = pullRequestOf(pr)
	}
	return out, err
}

func (s reviewSource) CommitsBetween(ctx context.Context, base, head string) ([]string, error) {
	return s.api.CommitsBetween(ctx, s.owner, s.repo, base, head)
}

func (s reviewSource) QueueRefs(ctx context.Context, branch string) ([]review.Ref, error) {
	refs, err := s.api.MatchingRefs(ctx, s.owner, s.repo, "heads/gh-readonly-queue/"+branch+"/")
	out := make([]review.Ref, len(refs))
	for i, r := range refs {
		out[i] = review.Ref{Name: r.Name, SHA: r.SHA}
	}
	return out, err
}

func pullRequestOf(pr github.PullRequest) review.PullRequest {
	return review.PullRequest{Number: pr.Number, HeadSHA: pr.HeadSHA, BaseRef: pr.BaseRef, MergeCommitSHA: pr.MergeCommitSHA,
		Merged: pr.Merged, Open: pr.State == "open" && !pr.Merged, MergedAt: pr.MergedAt, Labels: pr.Labels, Author: pr.Author,
		HeadRef: pr.HeadRef, Fork: pr.HeadRepo == "" || !strings.EqualFold(pr.HeadRepo, pr.BaseRepo)}
}

func (s reviewSource) ListLabelEvents(ctx context.Context, number int) ([]review.LabelEvent, error) {
	events, err := s.api.ListLabelEvents(ctx, s.owner, s.repo, number)
	out := make([]review.LabelEvent, len(events))
	for i, e := range events {
		out[i] = review.LabelEvent{Event: e.Event, Label: e.Label, At: e.At, Actor: e.Actor, ActorType: e.ActorType}
	}
	return out, err
}

func (s reviewSource) ListReviews(ctx context.Context, number int) ([]review.PullReview, error) {
	reviews, err := s.api.ListReviews(ctx, s.owner, s.repo, number)
	out := make([]review.PullReview, len(reviews))
	for i, rv := range reviews {
		out[i] = review.PullReview{Login: rv.Login, State: rv.State, CommitID: rv.CommitID, SubmittedAt: rv.SubmittedAt, UserType: rv.UserType}
	}
	return out, err
}

func (s reviewSource) Permission(ctx context.Context, login string) (string, error) {
	return s.api.CollaboratorPermission(ctx, s.owner, s.repo, login)
}

func (s reviewSource) Pushes(ctx context.Context, branch string) ([]review.Push, error) {
	pushes, err := s.api.ListPushes(ctx, s.owner, s.repo, branch)
	out := make([]review.Push, len(pushes))
	for i, p := range pushes {
		out[i] = review.Push{After: p.After, Actor: p.Actor, ActorType: p.ActorType}
	}
	return out, err
}

func (s reviewSource) AutoMergeEvents(ctx context.Context, number int) ([]review.AutoMergeEvent, error) {
	events, err := s.api.ListAutoMergeEvents(ctx, s.owner, s.repo, number)
	out := make([]review.AutoMergeEvent, len(events))
	for i, e := range events {
		out[i] = review.AutoMergeEvent{Enabled: e.Enabled, At: e.At}
	}
	return out, err
}

func (s reviewSource) ListCheckRunsForRef(ctx context.Context, ref, name string) ([]review.CheckRun, error) {
	runs, err := s.api.ListCheckRunsForRef(ctx, s.owner, s.repo, ref, name)
	if err != nil {
		if github.IsForbidden(err) {
			return nil, fmt.Errorf("%w (the job needs checks: read)", err)
		}
		return nil, err
	}
	out := make([]review.CheckRun, len(runs))
	for i, cr := range runs {
		out[i] = review.CheckRun{ID: cr.ID, Name: cr.Name, HeadSHA: cr.HeadSHA, ExternalID: cr.ExternalID, AppSlug: cr.AppSlug, HTMLURL: cr.HTMLURL, CompletedAt: cr.CompletedAt}
	}
	return out, nil
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
	out := make([]review.Comment, len(ours))
	for i, c := range ours {
		out[i] = review.Comment{ID: c.ID, Body: c.Body, HTMLURL: c.HTMLURL}
	}
	return out, nil
}
