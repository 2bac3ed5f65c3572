package github

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

func TestListReviewsAllPages(t *testing.T) {
	const path = "repos/o/r/pulls/7/reviews"
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, query: "per_page=100", header: nextLink(path, 2, 2),
			resp: `[{"id":1,"user":{"login":"alice"},"state":"APPROVED","commit_id":"h1","submitted_at":"2025-01-01T00:00:00Z"}]`},
		{method: "GET", path: path, query: "page=2&per_page=100",
			resp: `[{"id":2,"user":{"login":"bob"},"state":"CHANGES_REQUESTED","commit_id":"h2","submitted_at":"2025-01-02T00:00:00Z"}]`},
	})
	got, err := c.ListReviews(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []Review{
		{Login: "alice", State: "APPROVED", CommitID: "h1", SubmittedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Login: "bob", State: "CHANGES_REQUESTED", CommitID: "h2", SubmittedAt: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)},
	})
}

func TestLabelEventsAndAuthorNameWho(t *testing.T) {
	c, _ := newTestClient(t, []call{
		{method: "GET", path: "repos/o/r/issues/7/events", query: "per_page=100",
			resp: `[{"event":"labeled","label":{"name":"security-approved"},"actor":{"login":"carol"},"created_at":"2025-01-01T00:00:00Z"}]`},
		{method: "GET", path: "repos/o/r/pulls/7", resp: `{"number":7,"user":{"login":"dave"},"head":{"sha":"h1"},"base":{"ref":"main"}}`},
	})
	ev, err := c.ListLabelEvents(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.DeepEqual(t, ev, []LabelEvent{{Event: "labeled", Label: "security-approved", Actor: "carol", At: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}})
	pr, err := c.GetPullRequest(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.Equal(t, pr.Author, "dave")
}
