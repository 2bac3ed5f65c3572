package github

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
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
	assert.DeepEqual(t, got, ghctx.PullRequest{
		Number: 7, HeadSHA: "h1", HeadRef: "feature", BaseRef: "main", MergeCommitSHA: "m1",
		HTMLURL: "https://github.com/o/r/pull/7", Merged: true, Labels: []string{"deploy", "infra"},
		Fork: true, // GitHub names no head repository

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
	assert.DeepEqual(t, got, []ghctx.PullRequest{
		{Number: 1, Open: true, HeadSHA: "a", BaseRef: "main", Fork: true},
		{Number: 7, Fork: true, HeadSHA: "h1", BaseRef: "main", MergeCommitSHA: "m1", Merged: true, MergedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
	})
}

// A workflow_run job keeps only the open pull request whose head is the
// run's commit and whose base is this repository.
func TestPullRequestForRun(t *testing.T) {
	const sha = "abc"
	ours := ghctx.PullRequest{Number: 3, Open: true, HeadSHA: sha, HeadRepo: "fork/r", BaseRepo: "o/r"}
	for _, tc := range []struct {
		name string
		prs  []ghctx.PullRequest
		want int
	}{
		{"the fork's pull request", []ghctx.PullRequest{ours}, 3},
		{"another head commit", []ghctx.PullRequest{{Number: 4, Open: true, HeadSHA: "def", BaseRepo: "o/r"}}, 0},
		{"based on another repository", []ghctx.PullRequest{{Number: 5, Open: true, HeadSHA: sha, BaseRepo: "fork/r"}}, 0},
		{"closed", []ghctx.PullRequest{{Number: 6, HeadSHA: sha, BaseRepo: "o/r"}}, 0},
		{"two candidates decide nothing", []ghctx.PullRequest{ours, {Number: 7, Open: true, HeadSHA: sha, BaseRepo: "O/R"}}, 0},
		{"among others", []ghctx.PullRequest{{Number: 4, Open: true, HeadSHA: "def", BaseRepo: "o/r"}, ours}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PullRequestForRun(tc.prs, sha, "o/r")
			assert.Equal(t, ok, tc.want != 0)
			assert.Equal(t, got.Number, tc.want)
		})
	}
}

// Open and Fork are decided where GitHub's answer is read: a pull request
// whose head repository GitHub no longer names is a fork (fail closed), and
// one merged is not open.
func TestPullRequestOpenAndFork(t *testing.T) {
	for _, tc := range []struct {
		name       string
		json       string
		open, fork bool
	}{
		{"same repository, another case", `{"number":1,"state":"open","head":{"repo":{"full_name":"O/R"}},"base":{"repo":{"full_name":"o/r"}}}`, true, false},
		{"a fork", `{"number":1,"state":"open","head":{"repo":{"full_name":"someone/r"}},"base":{"repo":{"full_name":"o/r"}}}`, true, true},
		{"head repository deleted", `{"number":1,"state":"open","head":{"repo":null},"base":{"repo":{"full_name":"o/r"}}}`, true, true},
		{"closed", `{"number":1,"state":"closed","head":{"repo":{"full_name":"o/r"}},"base":{"repo":{"full_name":"o/r"}}}`, false, false},
		{"merged", `{"number":1,"state":"open","merged_at":"2025-01-01T00:00:00Z","head":{"repo":{"full_name":"o/r"}},"base":{"repo":{"full_name":"o/r"}}}`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, []call{{method: "GET", path: "repos/o/r/pulls/1", resp: tc.json}})
			got, err := c.GetPullRequest(context.Background(), "o", "r", 1)
			assert.NilError(t, err)
			assert.Equal(t, got.Open, tc.open, "open")
			assert.Equal(t, got.Fork, tc.fork, "fork")
		})
	}
}
