package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// Review is a pull request review: who, in what state (APPROVED,
// CHANGES_REQUESTED, COMMENTED, DISMISSED), of which commit, and when.
type Review struct {
	Login       string
	State       string
	CommitID    string
	SubmittedAt time.Time
	// UserType is the reviewer account's type ("User", "Bot", ...).
	UserType string
}

// ListReviews lists a pull request's reviews, oldest first: the deploy
// gate counts approvals of the reviewed head given after its review was
// shown and before the merge.
func (c *Client) ListReviews(ctx context.Context, owner, repo string, number int) ([]Review, error) {
	opts := listOptions()
	reviews, err := allPages(func(page int) ([]*gh.PullRequestReview, *gh.Response, error) {
		opts.Page = page
		return c.gh.PullRequests.ListReviews(ctx, owner, repo, number, &opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the reviews of %s/%s#%d: %w", owner, repo, number, err)
	}
	out := make([]Review, 0, len(reviews))
	for _, r := range reviews {
		out = append(out, Review{Login: r.GetUser().GetLogin(), State: r.GetState(), CommitID: r.GetCommitID(), SubmittedAt: r.GetSubmittedAt().Time, UserType: r.GetUser().GetType()})
	}
	return out, nil
}
