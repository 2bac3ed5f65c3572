package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v84/github"
)

// Issue is a tracking issue, such as the one the drift check keeps open.
type Issue struct {
	Number      int
	Title       string
	Body        string
	State       string
	HTMLURL     string
	AuthorLogin string
	Labels      []string // label names
}

func issueFrom(i *gh.Issue) Issue {
	return Issue{
		Number:      i.GetNumber(),
		Title:       i.GetTitle(),
		Body:        i.GetBody(),
		State:       i.GetState(),
		HTMLURL:     i.GetHTMLURL(),
		AuthorLogin: i.GetUser().GetLogin(),
		Labels:      labelNames(i.Labels),
	}
}

// ListIssuesOptions filters ListIssues. State is "open", "closed" or "all"
// (GitHub's default is "open"); an issue must carry every label in Labels.
type ListIssuesOptions struct {
	State   string
	Labels  []string
	Creator string
}

// IssueEdit changes an issue; nil fields are left as they are.
type IssueEdit struct {
	Title *string
	Body  *string
	State *string
	// Labels, when not nil, replaces the issue's labels.
	Labels *[]string
}

func labelNames(ls []*gh.Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out
}

// ListIssues lists a repository's issues across all pages. GitHub's issue
// listing also returns pull requests; they are left out.
func (c *Client) ListIssues(ctx context.Context, owner, repo string, o ListIssuesOptions) ([]Issue, error) {
	opts := &gh.IssueListByRepoOptions{
		State:       o.State,
		Labels:      o.Labels,
		Creator:     o.Creator,
		ListOptions: listOptions(),
	}
	issues, err := allPages(func(page int) ([]*gh.Issue, *gh.Response, error) {
		// v84 embeds both offset and cursor options; issues page by offset.
		opts.ListOptions.Page = page
		return c.gh.Issues.ListByRepo(ctx, owner, repo, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list issues in %s/%s: %w", owner, repo, err)
	}
	var out []Issue
	for _, i := range issues {
		if i.IsPullRequest() {
			continue
		}
		out = append(out, issueFrom(i))
	}
	return out, nil
}

// CreateIssue opens an issue.
func (c *Client) CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (Issue, error) {
	req := &gh.IssueRequest{Title: &title, Body: &body}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	create := func() (Issue, error) {
		i, resp, err := c.gh.Issues.Create(ctx, owner, repo, req)
		if err = madeOrUnknown(resp, err, int64(i.GetNumber())); err != nil {
			return Issue{}, err
		}
		return issueFrom(i), nil
	}
	// The issue a lost answer may have opened: same title and body (the
	// tracking issue's body carries its marker), newest first.
	find := func() (Issue, bool, error) {
		open, err := c.ListIssues(ctx, owner, repo, ListIssuesOptions{State: "open", Labels: labels})
		if err != nil {
			return Issue{}, false, err
		}
		var best *Issue
		for i := range open {
			if open[i].Title == title && strings.TrimSpace(open[i].Body) == strings.TrimSpace(body) && (best == nil || open[i].Number > best.Number) {
				best = &open[i]
			}
		}
		if best == nil {
			return Issue{}, false, nil
		}
		return *best, true, nil
	}
	i, err := createOnce(ctx, c, fmt.Sprintf("issue %q", title), create, find)
	if err != nil {
		return Issue{}, fmt.Errorf("create issue %q in %s/%s: %w", title, owner, repo, err)
	}
	return i, nil
}

// EditIssue changes an issue's title, body or state.
func (c *Client) EditIssue(ctx context.Context, owner, repo string, number int, e IssueEdit) (Issue, error) {
	req := &gh.IssueRequest{Title: e.Title, Body: e.Body, State: e.State, Labels: e.Labels}
	i, _, err := c.gh.Issues.Edit(ctx, owner, repo, number, req)
	if err != nil {
		return Issue{}, fmt.Errorf("edit issue %s/%s#%d: %w", owner, repo, number, err)
	}
	return issueFrom(i), nil
}
