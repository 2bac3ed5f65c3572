package review

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// groupAPI answers a compare, each commit's pull requests and single pull
// requests, and records the compare it was asked for.
type groupAPI struct {
	pushAPI
	pulls    map[int]ghctx.PullRequest
	basehead *string
	refs     []Ref
	refsErr  error
}

func (a groupAPI) QueueRefs(_ context.Context, branch string) ([]Ref, error) {
	if branch != "main" {
		return nil, errors.New("asked for the refs of " + branch)
	}
	return a.refs, a.refsErr
}

func (a groupAPI) CommitsBetween(_ context.Context, base, head string) ([]string, error) {
	*a.basehead = base + "..." + head
	return a.commits, nil
}

func (a groupAPI) GetPullRequest(_ context.Context, n int) (ghctx.PullRequest, error) {
	return a.pulls[n], nil
}

// The pull requests of a merge group are the open ones into its branch
// whose head is among the commits the group adds to the branch, and those
// a queue ref names at one of those commits (a squash or rebase queue
// writes commits no pull request holds), the group's own ref included.
// Merged, closed, another branch's, or one whose head moved (an older
// commit of it is in the group) never count; a ref of a commit outside the
// group, or of another branch's queue, names nothing.
func TestGroupPRs(t *testing.T) {
	const head = "9999999999999999999999999999999999999999"
	const sha = "1234567890123456789012345678901234567890" // the base a ref's name records
	api := groupAPI{pushAPI: pushAPI{commits: []string{"c1", "m1", "c2", "c3", "s4", "s5", head}, prs: map[string][]ghctx.PullRequest{
		"c1": {{Number: 4, Open: true, BaseRef: "main", HeadSHA: "c1"}, {Number: 5, Open: true, BaseRef: "release", HeadSHA: "c1"}},
		"c2": {{Number: 6, Open: true, BaseRef: "main", HeadSHA: "c2-moved"}, {Number: 7, Merged: true, BaseRef: "main", HeadSHA: "c2"}},
		"c3": {{Number: 8, Open: true, BaseRef: "main", HeadSHA: "c3"}, {Number: 9, BaseRef: "main", HeadSHA: "c3"}},
	}}, pulls: map[int]ghctx.PullRequest{
		10: {Number: 10, Open: true, BaseRef: "main", HeadSHA: "h10"},
		11: {Number: 11, Merged: true, BaseRef: "main", HeadSHA: "h11"},
		12: {Number: 12, Open: true, BaseRef: "release", HeadSHA: "h12"},
		13: {Number: 13, Open: true, BaseRef: "main", HeadSHA: "h13"},
		14: {Number: 14, Open: true, BaseRef: "main", HeadSHA: "h14"},
		15: {Number: 15, Open: true, BaseRef: "main", HeadSHA: "h15"},
	}}
	squash := []Ref{
		{Name: "refs/heads/gh-readonly-queue/main/pr-13-" + sha, SHA: "s4"},
		{Name: "refs/heads/gh-readonly-queue/main/pr-14-" + sha, SHA: "s5"},
		{Name: "refs/heads/gh-readonly-queue/main/pr-10-" + sha, SHA: head},
		{Name: "refs/heads/gh-readonly-queue/main/pr-15-" + sha, SHA: "behind-this-group"},
		{Name: "refs/heads/gh-readonly-queue/main/v2/pr-12-" + sha, SHA: "s4"},
	}
	tests := []struct {
		name   string
		queued int
		refs   []Ref
		want   []int
		warn   []string
		// orphan: the commits said to belong to no pull request, when
		// GitHub lists no queue ref at all.
		orphan string
	}{
		{name: "merge commits: the heads in the group", want: []int{4, 8}, orphan: "m1, s4, s5, 9999999"},
		{name: "the ref names one already found", queued: 8, want: []int{4, 8}, orphan: "m1, s4, s5"},
		{name: "squashed: the ref names its own", queued: 10, want: []int{4, 8, 10}, orphan: "m1, s4, s5"},
		{name: "the ref names a merged one", queued: 11, want: []int{4, 8}, orphan: "m1, s4, s5", warn: []string{"the merge group's ref names pull request #11, which is not an open pull request into main"}},
		{name: "the ref names another branch's", queued: 12, want: []int{4, 8}, orphan: "m1, s4, s5", warn: []string{"#12, which is not an open pull request into main"}},
		{name: "squashed: the queue's refs name the groups ahead", queued: 10, refs: squash, want: []int{4, 8, 10, 13, 14}},
		{name: "a queue ref names a closed one", refs: []Ref{{Name: "refs/heads/gh-readonly-queue/main/pr-11-" + sha, SHA: "s4"}}, want: []int{4, 8},
			warn: []string{"the merge queue's ref gh-readonly-queue/main/pr-11-" + sha + " names pull request #11, which is not an open pull request into main"}},
		{name: "a name that is no queue ref", refs: append([]Ref{{Name: "refs/heads/gh-readonly-queue/main/tmp", SHA: "s4"}}, squash[:1]...), want: []int{4, 8, 13},
			warn: []string{"ignored ref refs/heads/gh-readonly-queue/main/tmp: it is not a merge queue entry's"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var basehead string
			a := api
			a.basehead, a.refs = &basehead, tc.refs
			var warned []string
			f := &Finder{API: a, Warn: func(s string) { warned = append(warned, s) },
				Where: Where{Group: &Group{HeadSHA: head, Branch: "main", QueuedPR: tc.queued}}}
			got, orphan, err := f.groupPRs(context.Background())
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
			if tc.orphan == "" {
				assert.Equal(t, orphan, "")
			} else {
				assert.Assert(t, is.Contains(orphan, "commits "+tc.orphan+" of the group belong to no pull request the action can find"), orphan)
			}
			assert.Equal(t, basehead, "main..."+head, "the commits the group adds to its branch, every group ahead included")
			assert.Equal(t, len(warned), len(tc.warn), strings.Join(warned, "\n"))
			for i, w := range tc.warn {
				assert.Assert(t, is.Contains(warned[i], w))
			}
		})
	}
}

// Without the queue's refs a squash queue's groups ahead are not found:
// failing to list them fails the lookup, it is not read as "no ref".
func TestGroupPRsNeedTheQueueRefs(t *testing.T) {
	var basehead string
	api := groupAPI{pushAPI: pushAPI{commits: []string{"s1"}}, basehead: &basehead, refsErr: errors.New("HTTP 502")}
	f := &Finder{API: api, Warn: func(string) {}, Where: Where{Group: &Group{HeadSHA: "s1", Branch: "main", QueuedPR: 3}}}
	_, _, err := f.groupPRs(context.Background())
	assert.ErrorContains(t, err, "list the merge queue's refs of main (gh-readonly-queue/main/) to find the pull requests of the groups ahead (the job needs contents: read): HTTP 502")
}
