package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// Comment is an issue or pull request comment, as much as the action needs
// to recognise its own.
type Comment struct {
	ID          int64
	Body        string
	HTMLURL     string
	AuthorLogin string
}

func commentFrom(c *gh.IssueComment) Comment {
	return Comment{
		ID:          c.GetID(),
		Body:        c.GetBody(),
		HTMLURL:     c.GetHTMLURL(),
		AuthorLogin: c.GetUser().GetLogin(),
	}
}

// ListIssueComments returns every comment on an issue or pull request, oldest
// first, across all pages: reading only the first page is how busy pull
// requests end up with duplicate sticky comments.
func (c *Client) ListIssueComments(ctx context.Context, owner, repo string, number int) ([]Comment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: listOptions()}
	comments, err := allPages(func(page int) ([]*gh.IssueComment, *gh.Response, error) {
		opts.Page = page
		return c.gh.Issues.ListComments(ctx, owner, repo, number, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list comments on %s/%s#%d: %w", owner, repo, number, err)
	}
	var out []Comment
	for _, ic := range comments {
		out = append(out, commentFrom(ic))
	}
	return out, nil
}

// CreateIssueComment posts a new comment on an issue or pull request.
func (c *Client) CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error) {
	ic, _, err := c.gh.Issues.CreateComment(ctx, owner, repo, number, &gh.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, fmt.Errorf("create comment on %s/%s#%d: %w", owner, repo, number, err)
	}
	return commentFrom(ic), nil
}

// EditIssueComment replaces the body of an existing comment.
func (c *Client) EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (Comment, error) {
	ic, _, err := c.gh.Issues.EditComment(ctx, owner, repo, id, &gh.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, fmt.Errorf("edit comment %d in %s/%s: %w", id, owner, repo, err)
	}
	return commentFrom(ic), nil
}

// DeleteIssueComment deletes a comment.
func (c *Client) DeleteIssueComment(ctx context.Context, owner, repo string, id int64) error {
	if _, err := c.gh.Issues.DeleteComment(ctx, owner, repo, id); err != nil {
		return fmt.Errorf("delete comment %d in %s/%s: %w", id, owner, repo, err)
	}
	return nil
}
