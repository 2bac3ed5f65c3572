package github

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

func TestListCheckRunsForRefAllPages(t *testing.T) {
	const path = "repos/o/r/commits/abc123/check-runs"
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, query: "check_name=cdkd+diff+%28prod%29&filter=all&per_page=100", header: nextLink(path, 2, 2),
			resp: `{"total_count":3,"check_runs":[
				{"id":30,"name":"cdkd diff (prod)","head_sha":"abc123","external_id":"cdkd-action:v1:diff:v1:bbb","conclusion":"neutral",
				 "completed_at":"2024-01-02T03:04:05Z","html_url":"https://github.com/o/r/runs/30","app":{"slug":"github-actions"}},
				{"id":10,"name":"cdkd diff (prod)","head_sha":"abc123","external_id":null,"conclusion":"failure","app":null}]}`},
		{method: "GET", path: path, query: "check_name=cdkd+diff+%28prod%29&filter=all&page=2&per_page=100",
			resp: `{"total_count":3,"check_runs":[{"id":20,"name":"cdkd diff (prod)","head_sha":"abc123","external_id":"x","app":{"slug":"deployer"}}]}`},
		{method: "GET", path: path, query: "check_name=cdkd+diff&filter=all&per_page=100", status: 404, resp: `{"message":"Not Found"}`},
	})
	ctx := context.Background()
	got, err := c.ListCheckRunsForRef(ctx, "o", "r", "abc123", "cdkd diff (prod)")
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []CheckRunInfo{ // oldest first, whatever GitHub's order
		{ID: 10, Name: "cdkd diff (prod)", HeadSHA: "abc123", Conclusion: "failure"},
		{ID: 20, Name: "cdkd diff (prod)", HeadSHA: "abc123", ExternalID: "x", AppSlug: "deployer"},
		{ID: 30, Name: "cdkd diff (prod)", HeadSHA: "abc123", ExternalID: "cdkd-action:v1:diff:v1:bbb", Conclusion: "neutral",
			AppSlug: "github-actions", HTMLURL: "https://github.com/o/r/runs/30", CompletedAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
	})

	_, err = c.ListCheckRunsForRef(ctx, "o", "r", "abc123", "cdkd diff")
	assert.ErrorContains(t, err, `list check runs "cdkd diff" on abc123 in o/r: `)
	assert.Check(t, IsNotFound(err))
}
