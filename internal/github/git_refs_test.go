package github

import (
	"context"
	"testing"

	"gotest.tools/v3/assert"
)

// The refs of a merge queue are read in full or not at all: a listing
// GitHub pages is not cut to its first page, which would drop entries
// ahead of a group and read their changes as unreviewed.
func TestMatchingRefs(t *testing.T) {
	const path = "repos/o/r/git/matching-refs/heads/gh-readonly-queue/main/"
	const refs = `[{"ref":"refs/heads/gh-readonly-queue/main/pr-8-abc","node_id":"n","url":"u","object":{"type":"commit","sha":"s8","url":"u"}}]`
	c, _ := newTestClient(t, []call{
		{method: "GET", path: path, resp: refs},
		{method: "GET", path: path, header: nextLink(path, 2, 2), resp: refs},
	})
	got, err := c.MatchingRefs(context.Background(), "o", "r", "refs/heads/gh-readonly-queue/main/")
	assert.NilError(t, err)
	assert.DeepEqual(t, got, []Ref{{Name: "refs/heads/gh-readonly-queue/main/pr-8-abc", SHA: "s8"}})
	_, err = c.MatchingRefs(context.Background(), "o", "r", "heads/gh-readonly-queue/main/")
	assert.ErrorContains(t, err, "list the refs matching heads/gh-readonly-queue/main/ in o/r: GitHub paged the listing, and only its first page was read")
}
