package github

import (
	"context"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// Comment is an issue or pull request comment, as much as the action needs
// to recognise its own.
type Comment struct {
	ID          int64
	Body        string
	HTMLURL     string
	AuthorLogin string
	// MayDuplicateUntil is set by a create when an earlier attempt of it
	// lost its answer and was not found before the create was sent again:
	// GitHub may still apply that attempt, making a second comment, until
	// about this time (one attempt's time limit after the create
	// returned). Upsert converges once more when it has passed.
	MayDuplicateUntil time.Time
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

// CreateIssueComment posts a new comment on an issue or pull request. When
// GitHub's answer is lost (5xx, reset, a success cut off before it named
// the comment), the comment the attempt may have
// posted is looked for by its exact body, which starts with the sticky
// comment's hidden header, before posting again.
func (c *Client) CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (Comment, error) {
	create := func() (Comment, error) {
		ic, resp, err := c.gh.Issues.CreateComment(ctx, owner, repo, number, &gh.IssueComment{Body: &body})
		if err = madeOrUnknown(resp, err, ic.GetID()); err != nil {
			return Comment{}, err
		}
		return commentFrom(ic), nil
	}
	find := func() (Comment, bool, error) {
		all, err := c.ListIssueComments(ctx, owner, repo, number)
		if err != nil {
			return Comment{}, false, err
		}
		for i := len(all) - 1; i >= 0; i-- {
			if strings.TrimSpace(all[i].Body) == strings.TrimSpace(body) {
				return all[i], true, nil
			}
		}
		return Comment{}, false, nil
	}
	cm, unsettled, err := createMaybeTwice(ctx, c, fmt.Sprintf("comment on #%d", number), create, find)
	if err != nil {
		return Comment{}, fmt.Errorf("create comment on %s/%s#%d: %w", owner, repo, number, err)
	}
	if unsettled {
		window := c.retry.attemptTimeout
		if window <= 0 {
			window = minLateWindow
		}
		cm.MayDuplicateUntil = time.Now().Add(window)
	}
	return cm, nil
}

// minLateWindow is how long Upsert waits for a create's lost attempt to
// land when the attempts have no time limit of their own.
const minLateWindow = 10 * time.Second

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
