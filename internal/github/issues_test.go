package github

import (
	"context"
	"net/http"
	"testing"

	"gotest.tools/v3/assert"
)

func TestListIssuesAllPagesWithoutPullRequests(t *testing.T) {
	const path = "repos/o/r/issues"
	const q = "creator=github-actions%5Bbot%5D&labels=cdkd-drift%2Cprod&per_page=100&state=all"
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, query: q, header: nextLink(path, 2, 3),
			resp: `[{"number":1,"title":"Drift","state":"open","body":"b","html_url":"u1","user":{"login":"github-actions[bot]"}},
				{"number":2,"title":"a PR","state":"open","pull_request":{"url":"x"}}]`},
		{method: "GET", path: path, query: "creator=github-actions%5Bbot%5D&labels=cdkd-drift%2Cprod&page=2&per_page=100&state=all",
			header: nextLink(path, 3, 3), resp: `[{"number":3,"title":"another PR","pull_request":{"url":"y"}}]`},
		{method: "GET", path: path, query: "creator=github-actions%5Bbot%5D&labels=cdkd-drift%2Cprod&page=3&per_page=100&state=all",
			resp: `[{"number":4,"title":"Old drift","state":"closed","html_url":"u4","user":{"login":"github-actions[bot]"}}]`},
	})
	got, err := c.ListIssues(context.Background(), "o", "r", ListIssuesOptions{
		State: "all", Labels: []string{"cdkd-drift", "prod"}, Creator: "github-actions[bot]",
	})
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []Issue{
		{Number: 1, Title: "Drift", Body: "b", State: "open", HTMLURL: "u1", AuthorLogin: "github-actions[bot]"},
		{Number: 4, Title: "Old drift", State: "closed", HTMLURL: "u4", AuthorLogin: "github-actions[bot]"},
	})
}

func TestIssueWrites(t *testing.T) {
	const issue = `{"number":5,"title":"Drift in prod","body":"b","state":"open","html_url":"u5","user":{"login":"github-actions[bot]"}}`
	const closed = `{"number":5,"title":"Drift in prod","body":"b","state":"closed","html_url":"u5","user":{"login":"github-actions[bot]"}}`
	c, _ := newTestClient(t, []call{
		{method: "POST", path: "repos/o/r/issues", status: http.StatusCreated, resp: issue,
			body: `{"title":"Drift in prod","body":"b","labels":["cdkd-drift"]}`},
		{method: "POST", path: "repos/o/r/issues", status: http.StatusCreated, resp: issue,
			body: `{"title":"Drift in prod","body":"b"}`},
		{method: "PATCH", path: "repos/o/r/issues/5", resp: closed, body: `{"state":"closed"}`},
		{method: "PATCH", path: "repos/o/r/issues/6", status: 410, resp: `{"message":"Issues are disabled for this repo"}`,
			body: `{"title":"t","body":"b"}`},
	})
	ctx := context.Background()
	want := Issue{Number: 5, Title: "Drift in prod", Body: "b", State: "open", HTMLURL: "u5", AuthorLogin: "github-actions[bot]"}

	got, err := c.CreateIssue(ctx, "o", "r", "Drift in prod", "b", []string{"cdkd-drift"})
	assert.NilError(t, err)
	assert.DeepEqual(t, got, want)

	got, err = c.CreateIssue(ctx, "o", "r", "Drift in prod", "b", nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, want)

	state := "closed"
	got, err = c.EditIssue(ctx, "o", "r", 5, IssueEdit{State: &state})
	assert.NilError(t, err)
	assert.Equal(t, got.State, "closed")

	title, body := "t", "b"
	_, err = c.EditIssue(ctx, "o", "r", 6, IssueEdit{Title: &title, Body: &body})
	assert.ErrorContains(t, err, "edit issue o/r#6: ")
	assert.ErrorContains(t, err, "Issues are disabled")
}
