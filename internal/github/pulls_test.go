package github

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

const prJSON = `{"number":7,"state":"closed","merged":true,"merge_commit_sha":"m1",
	"html_url":"https://github.com/o/r/pull/7","head":{"sha":"h1","ref":"feature"},"base":{"ref":"main"},
	"labels":[{"name":"deploy"},{"name":"infra"}]}`

func TestGetPullRequest(t *testing.T) {
	c, _ := newTestClient(t, []call{
		{method: "GET", path: "repos/o/r/pulls/7", resp: prJSON},
		{method: "GET", path: "repos/o/r/pulls/8", status: 404, resp: `{"message":"Not Found"}`},
	})
	ctx := context.Background()

	got, err := c.GetPullRequest(ctx, "o", "r", 7)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, PullRequest{
		Number: 7, State: "closed", HeadSHA: "h1", HeadRef: "feature", BaseRef: "main", MergeCommitSHA: "m1",
		HTMLURL: "https://github.com/o/r/pull/7", Merged: true, Labels: []string{"deploy", "infra"},
	})

	_, err = c.GetPullRequest(ctx, "o", "r", 8)
	assert.ErrorContains(t, err, "get pull request o/r#8: ")
	assert.Check(t, IsNotFound(err))
}

func TestPullRequestsForCommitAllPages(t *testing.T) {
	const path = "repos/o/r/commits/m1/pulls"
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, query: "per_page=100", header: nextLink(path, 2, 3),
			resp: `[{"number":1,"state":"open","head":{"sha":"a"},"base":{"ref":"main"}}]`},
		{method: "GET", path: path, query: "page=2&per_page=100", header: nextLink(path, 3, 3), resp: `[]`},
		{method: "GET", path: path, query: "page=3&per_page=100",
			// Listings carry merged_at, not merged.
			resp: `[{"number":7,"state":"closed","merged_at":"2025-01-01T00:00:00Z","head":{"sha":"h1"},"base":{"ref":"main"},"merge_commit_sha":"m1"}]`},
	})
	got, err := c.PullRequestsForCommit(context.Background(), "o", "r", "m1")
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []PullRequest{
		{Number: 1, State: "open", HeadSHA: "a", BaseRef: "main"},
		{Number: 7, State: "closed", HeadSHA: "h1", BaseRef: "main", MergeCommitSHA: "m1", Merged: true, MergedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
	})
}

// A workflow_run job keeps only the open pull request whose head is the
// run's commit and whose base is this repository.
func TestPullRequestForRun(t *testing.T) {
	const sha = "abc"
	ours := PullRequest{Number: 3, State: "open", HeadSHA: sha, HeadRepo: "fork/r", BaseRepo: "o/r"}
	for _, tc := range []struct {
		name string
		prs  []PullRequest
		want int
	}{
		{"the fork's pull request", []PullRequest{ours}, 3},
		{"another head commit", []PullRequest{{Number: 4, State: "open", HeadSHA: "def", BaseRepo: "o/r"}}, 0},
		{"based on another repository", []PullRequest{{Number: 5, State: "open", HeadSHA: sha, BaseRepo: "fork/r"}}, 0},
		{"closed", []PullRequest{{Number: 6, State: "closed", HeadSHA: sha, BaseRepo: "o/r"}}, 0},
		{"two candidates decide nothing", []PullRequest{ours, {Number: 7, State: "open", HeadSHA: sha, BaseRepo: "O/R"}}, 0},
		{"among others", []PullRequest{{Number: 4, State: "open", HeadSHA: "def", BaseRepo: "o/r"}, ours}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PullRequestForRun(tc.prs, sha, "o/r")
			assert.Equal(t, ok, tc.want != 0)
			assert.Equal(t, got.Number, tc.want)
		})
	}
}
