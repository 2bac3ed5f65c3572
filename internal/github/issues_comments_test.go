package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// commentJSON is a comment as the API returns it.
func commentJSON(id int64, login, body string) string {
	b, _ := json.Marshal(map[string]any{
		"id":       id,
		"body":     body,
		"html_url": fmt.Sprintf("https://github.com/o/r/pull/7#issuecomment-%d", id),
		"user":     map[string]any{"login": login},
	})
	return string(b)
}

func comment(id int64, login, body string) Comment {
	return Comment{ID: id, Body: body, AuthorLogin: login, HTMLURL: fmt.Sprintf("https://github.com/o/r/pull/7#issuecomment-%d", id)}
}

func jsonList(items ...string) string { return "[" + strings.Join(items, ",") + "]" }

func TestListIssueCommentsAllPages(t *testing.T) {
	const path = "repos/o/r/issues/7/comments"
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, query: "per_page=100", header: nextLink(path, 2, 3),
			resp: jsonList(commentJSON(1, "alice", "a"), commentJSON(2, "github-actions[bot]", "b"))},
		{method: "GET", path: path, query: "page=2&per_page=100", header: nextLink(path, 3, 3),
			resp: jsonList(commentJSON(3, "bob", "c"))},
		{method: "GET", path: path, query: "page=3&per_page=100",
			resp: jsonList(commentJSON(4, "carol", "d"))},
	})
	got, err := c.ListIssueComments(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []Comment{
		comment(1, "alice", "a"), comment(2, "github-actions[bot]", "b"),
		comment(3, "bob", "c"), comment(4, "carol", "d"),
	})
}

func TestCommentWrites(t *testing.T) {
	c, _ := newTestClient(t, []call{
		{method: "POST", path: "repos/o/r/issues/7/comments", body: `{"body":"hello"}`,
			status: http.StatusCreated, resp: commentJSON(10, "github-actions[bot]", "hello")},
		{method: "PATCH", path: "repos/o/r/issues/comments/10", body: `{"body":"bye"}`,
			resp: commentJSON(10, "github-actions[bot]", "bye")},
		{method: "DELETE", path: "repos/o/r/issues/comments/10", status: http.StatusNoContent},
	})
	ctx := context.Background()

	created, err := c.CreateIssueComment(ctx, "o", "r", 7, "hello")
	assert.NilError(t, err)
	assert.DeepEqual(t, created, comment(10, "github-actions[bot]", "hello"))

	edited, err := c.EditIssueComment(ctx, "o", "r", 10, "bye")
	assert.NilError(t, err)
	assert.DeepEqual(t, edited, comment(10, "github-actions[bot]", "bye"))

	assert.NilError(t, c.DeleteIssueComment(ctx, "o", "r", 10))
}

func TestCommentErrorsSayWhatFailed(t *testing.T) {
	c, _ := newTestClient(t, []call{
		{method: "PATCH", path: "repos/o/r/issues/comments/10", body: `{"body":"x"}`,
			status: http.StatusNotFound, resp: `{"message":"Not Found"}`},
		{method: "POST", path: "repos/o/r/issues/7/comments", body: `{"body":"x"}`,
			status: http.StatusForbidden, resp: `{"message":"Resource not accessible by integration"}`},
	})
	ctx := context.Background()

	_, err := c.EditIssueComment(ctx, "o", "r", 10, "x")
	assert.ErrorContains(t, err, "edit comment 10 in o/r: ")
	assert.Check(t, IsNotFound(err))
	assert.Check(t, !IsForbidden(err))

	_, err = c.CreateIssueComment(ctx, "o", "r", 7, "x")
	assert.ErrorContains(t, err, "create comment on o/r#7: ")
	assert.ErrorContains(t, err, "Resource not accessible by integration")
	assert.Check(t, IsForbidden(err))
	assert.Check(t, !IsNotFound(err))
}
