package github

import (
	"context"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// What the deploy gate's approval rules read besides reviews and labels:
// who may approve (a user's permission on the repository), who pushed the
// reviewed head (the repository's activity) and when auto-merge was
// enabled (the pull request's timeline).

// CollaboratorPermission is login's base permission on the repository, as
// GitHub's permission API gives it: "admin", "write" (maintain reads as
// write), "read" (triage reads as read) or "none". Reading it needs the
// token's metadata: read, which every token has.
func (c *Client) CollaboratorPermission(ctx context.Context, owner, repo, login string) (string, error) {
	p, _, err := c.gh.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	if err != nil {
		return "", fmt.Errorf("read the permission of %s on %s/%s: %w", login, owner, repo, err)
	}
	return p.GetPermission(), nil
}

// Push is one push to a branch as the repository's activity records it:
// who moved the branch from Before to After, and when.
type Push struct {
	Before, After string
	// Type is the activity's type: push, force_push or branch_creation.
	Type      string
	Actor     string
	ActorType string
	At        time.Time
}

// maxActivityPages bounds how much of a branch's history is read (100
// activities a page, newest first).
const maxActivityPages = 10

// ListPushes lists the pushes to branch (push, force push, creation),
// newest first, as far back as the repository's activity goes.
func (c *Client) ListPushes(ctx context.Context, owner, repo, branch string) ([]Push, error) {
	opts := &gh.ListRepositoryActivityOptions{Ref: "refs/heads/" + branch, PerPage: perPage}
	var out []Push
	for range maxActivityPages {
		acts, resp, err := c.gh.Repositories.ListRepositoryActivities(ctx, owner, repo, opts)
		if err != nil {
			return nil, fmt.Errorf("list the pushes to %s in %s/%s: %w", branch, owner, repo, err)
		}
		for _, a := range acts {
			switch a.ActivityType {
			case "push", "force_push", "branch_creation":
				out = append(out, Push{Before: a.Before, After: a.After, Type: a.ActivityType,
					Actor: a.GetActor().GetLogin(), ActorType: a.GetActor().GetType(), At: a.GetTimestamp().Time})
			}
		}
		if resp.After == "" {
			return out, nil
		}
		opts.After = resp.After
	}
	return out, nil
}

// AutoMergeEvent is auto-merge enabled (with any merge method) or
// disabled on a pull request, from its timeline.
type AutoMergeEvent struct {
	Enabled bool
	Actor   string
	At      time.Time
}

// ListAutoMergeEvents lists when auto-merge was enabled and disabled on
// pull request number, oldest first.
func (c *Client) ListAutoMergeEvents(ctx context.Context, owner, repo string, number int) ([]AutoMergeEvent, error) {
	opts := listOptions()
	events, err := allPages(func(page int) ([]*gh.Timeline, *gh.Response, error) {
		opts.Page = page
		return c.gh.Issues.ListIssueTimeline(ctx, owner, repo, number, &opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the timeline of %s/%s#%d: %w", owner, repo, number, err)
	}
	var out []AutoMergeEvent
	for _, e := range events {
		switch ev := e.GetEvent(); {
		case ev == "auto_merge_disabled":
			out = append(out, AutoMergeEvent{Enabled: false, Actor: e.GetActor().GetLogin(), At: e.GetCreatedAt().Time})
		case strings.HasPrefix(ev, "auto_") && strings.HasSuffix(ev, "_enabled"):
			// auto_merge_enabled, auto_squash_enabled, auto_rebase_enabled
			out = append(out, AutoMergeEvent{Enabled: true, Actor: e.GetActor().GetLogin(), At: e.GetCreatedAt().Time})
		}
	}
	return out, nil
}
