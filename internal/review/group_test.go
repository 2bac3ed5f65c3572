package review

import (
	"context"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// groupAPI answers a compare, each commit's pull requests and single pull
// requests, and records the compare it was asked for.
type groupAPI struct {
	pushAPI
	pulls    map[int]PullRequest
	basehead *string
}

func (a groupAPI) CommitsBetween(_ context.Context, base, head string) ([]string, error) {
	*a.basehead = base + "..." + head
	return a.commits, nil
}

func (a groupAPI) GetPullRequest(_ context.Context, n int) (PullRequest, error) {
	return a.pulls[n], nil
}

// The pull requests of a merge group are the open ones into its branch
// whose head is among the commits the group adds to the branch, and the one
// the group's ref names (a squash or rebase queue writes commits no pull
// request holds). Merged, closed, another branch's, or one whose head moved
// (an older commit of it is in the group) never count.
func TestGroupPRs(t *testing.T) {
	const head = "9999999999999999999999999999999999999999"
	api := groupAPI{pushAPI: pushAPI{commits: []string{"c1", "m1", "c2", "c3", "s4", head}, prs: map[string][]PullRequest{
		"c1": {{Number: 4, Open: true, BaseRef: "main", HeadSHA: "c1"}, {Number: 5, Open: true, BaseRef: "release", HeadSHA: "c1"}},
		"c2": {{Number: 6, Open: true, BaseRef: "main", HeadSHA: "c2-moved"}, {Number: 7, Merged: true, BaseRef: "main", HeadSHA: "c2"}},
		"c3": {{Number: 8, Open: true, BaseRef: "main", HeadSHA: "c3"}, {Number: 9, BaseRef: "main", HeadSHA: "c3"}},
	}}, pulls: map[int]PullRequest{
		10: {Number: 10, Open: true, BaseRef: "main", HeadSHA: "h10"},
		11: {Number: 11, Merged: true, BaseRef: "main", HeadSHA: "h11"},
		12: {Number: 12, Open: true, BaseRef: "release", HeadSHA: "h12"},
	}}
	tests := []struct {
		name   string
		queued int
		want   []int
		warn   string
	}{
		{name: "merge commits: the heads in the group", want: []int{4, 8}},
		{name: "the ref names one already found", queued: 8, want: []int{4, 8}},
		{name: "squashed: the ref names its own", queued: 10, want: []int{4, 8, 10}},
		{name: "the ref names a merged one", queued: 11, want: []int{4, 8}, warn: "#11, which is not an open pull request into main"},
		{name: "the ref names another branch's", queued: 12, want: []int{4, 8}, warn: "#12, which is not an open pull request into main"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var basehead string
			a := api
			a.basehead = &basehead
			var warned []string
			f := &Finder{API: a, Warn: func(s string) { warned = append(warned, s) },
				Where: Where{Group: &Group{HeadSHA: head, Branch: "main", QueuedPR: tc.queued}}}
			got, err := f.groupPRs(context.Background())
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
			assert.Equal(t, basehead, "main..."+head, "the commits the group adds to its branch, every group ahead included")
			if tc.warn != "" {
				assert.Assert(t, is.Contains(strings.Join(warned, "\n"), tc.warn))
			} else {
				assert.Assert(t, is.Len(warned, 0))
			}
		})
	}
}
