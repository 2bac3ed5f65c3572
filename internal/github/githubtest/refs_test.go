package githubtest_test

import (
	"context"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// A ref's name holds slashes, and GitHub reads the rest of the path as the
// ref: the fake routes heads/gh-readonly-queue/<branch>/ as one parameter,
// whatever the branch, and answers the refs that start with it, sorted,
// in GitHub's shape.
func TestMatchingRefs(t *testing.T) {
	const a, b, c = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222", "3333333333333333333333333333333333333333"
	srv := githubtest.New(t)
	for name, sha := range map[string]string{
		"refs/heads/gh-readonly-queue/main/pr-9-" + a:       b,
		"refs/heads/gh-readonly-queue/main/pr-8-" + a:       a,
		"refs/heads/gh-readonly-queue/main-2/pr-7-" + a:     c,
		"refs/heads/gh-readonly-queue/release/v2/pr-6-" + a: c,
		"refs/heads/gh-readonly-queue/feat#1/pr-5-" + a:     c,
		"refs/heads/main": a,
	} {
		srv.SetRef("o", "r", name, sha)
	}
	srv.DeleteRef("o", "r", "refs/heads/gh-readonly-queue/main/pr-9-"+a)
	srv.SetRef("o", "r", "refs/heads/gh-readonly-queue/main/pr-10-"+a, b)
	srv.SetToken("t", "octocat")
	cl, err := github.NewClient("t", srv.APIURL())
	assert.NilError(t, err)
	ctx := context.Background()
	for _, tc := range []struct {
		prefix string
		want   []github.Ref
	}{
		{"heads/gh-readonly-queue/main/", []github.Ref{
			{Name: "refs/heads/gh-readonly-queue/main/pr-10-" + a, SHA: b},
			{Name: "refs/heads/gh-readonly-queue/main/pr-8-" + a, SHA: a}}},
		{"heads/gh-readonly-queue/release/v2/", []github.Ref{{Name: "refs/heads/gh-readonly-queue/release/v2/pr-6-" + a, SHA: c}}},
		{"heads/gh-readonly-queue/feat#1/", []github.Ref{{Name: "refs/heads/gh-readonly-queue/feat#1/pr-5-" + a, SHA: c}}},
		{"heads/gh-readonly-queue/dev/", []github.Ref{}},
	} {
		got, err := cl.MatchingRefs(ctx, "o", "r", tc.prefix)
		assert.NilError(t, err, tc.prefix)
		assert.DeepEqual(t, got, tc.want)
	}
	reqs := srv.Requests()
	assert.Equal(t, reqs[len(reqs)-1].Operation, githubtest.OpListMatchingRefs)
}
