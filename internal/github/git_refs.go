package github

import (
	"context"
	"fmt"
	"strings"
)

// Ref is a git reference: its full name (refs/heads/...) and the commit it
// points at.
type Ref struct {
	Name, SHA string
}

// MatchingRefs lists the refs whose name starts with refs/<prefix>
// (heads/gh-readonly-queue/main/: a merge queue's entries). GitHub answers
// with one list; should it ever page one, the rest is not guessed at: the
// listing fails, and whoever needed every ref fails closed.
func (c *Client) MatchingRefs(ctx context.Context, owner, repo, prefix string) ([]Ref, error) {
	refs, resp, err := c.gh.Git.ListMatchingRefs(ctx, owner, repo, strings.TrimPrefix(prefix, "refs/"))
	if err != nil {
		return nil, fmt.Errorf("list the refs matching %s in %s/%s: %w", prefix, owner, repo, err)
	}
	if resp != nil && resp.NextPage != 0 {
		return nil, fmt.Errorf("list the refs matching %s in %s/%s: GitHub paged the listing, and only its first page was read", prefix, owner, repo)
	}
	out := make([]Ref, 0, len(refs))
	for _, r := range refs {
		out = append(out, Ref{Name: r.GetRef(), SHA: r.GetObject().GetSHA()})
	}
	return out, nil
}
