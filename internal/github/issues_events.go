package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// LabelEvent is a label added to ("labeled") or removed from ("unlabeled")
// an issue or pull request, and when.
type LabelEvent struct {
	Event string
	Label string
	At    time.Time
	// Actor is who added or removed it: an approval label counts only
	// when someone other than the pull request's author added it.
	Actor string
	// ActorType is the actor account's type ("User", "Bot", ...).
	ActorType string
}

// ListLabelEvents lists when labels were added to and removed from issue or
// pull request number, oldest first: the deploy gate counts an approval
// label only if it was on the pull request when it merged.
func (c *Client) ListLabelEvents(ctx context.Context, owner, repo string, number int) ([]LabelEvent, error) {
	opts := listOptions()
	events, err := allPages(func(page int) ([]*gh.IssueEvent, *gh.Response, error) {
		opts.Page = page
		return c.gh.Issues.ListIssueEvents(ctx, owner, repo, number, &opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the events of %s/%s#%d: %w", owner, repo, number, err)
	}
	var out []LabelEvent
	for _, e := range events {
		if (e.GetEvent() == "labeled" || e.GetEvent() == "unlabeled") && e.Label != nil {
			out = append(out, LabelEvent{Event: e.GetEvent(), Label: e.Label.GetName(), At: e.GetCreatedAt().Time, Actor: e.GetActor().GetLogin(), ActorType: e.GetActor().GetType()})
		}
	}
	return out, nil
}
