package main

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// A merge queue that squashes (or rebases) writes, per entry, a commit
// GitHub associates with no pull request. Each entry has its own ref,
// gh-readonly-queue/<base>/pr-<N>-<sha>, at the commit its squash added:
// verify lists the queue's refs and takes, for each commit the group adds
// to the branch, the pull request whose ref points at it.

const (
	squash9 = "9191919191919191919191919191919191919191" // the first entry's squash: #9
	squash8 = "8181818181818181818181818181818181818181" // the second's: #8
)

// queueRef is the ref of the queue entry that adds pull request pr on
// parent.
func queueRef(pr, parent string) string {
	return "refs/heads/gh-readonly-queue/main/pr-" + pr + "-" + parent
}

// squashQueueWorkspace is queuedPRs in a queue that squashes, three entries
// in flight: #9, then #8, then #10, whose group is the one checked. The
// compare of main...group lists the three squash commits, none of which is
// a pull request's, and each entry's ref points at its own.
func squashQueueWorkspace(t *testing.T, extra ...cdkdtest.Invocation) (*workspace, *cdkdtest.Stub) {
	t.Helper()
	w, stub := queuedPRs(t, extra...)
	w.gh.SetCommits(owner, repo, "main", groupHead, squash9, squash8, groupHead)
	w.gh.SetRef(owner, repo, queueRef("9", queueBase), squash9)
	w.gh.SetRef(owner, repo, queueRef("8", squash9), squash8)
	w.gh.SetRef(owner, repo, queueRef("10", queueBase), groupHead) // the event's head_ref
	return w, stub
}

// The third group's check finds the three pull requests through the
// queue's refs and passes. A ref that names a closed pull request, or whose
// name is no queue entry's, is ignored and said in the log; a ref of
// another branch's queue is not this group's.
func TestMergeQueueSquashedGroupOfThree(t *testing.T) {
	for _, tc := range []struct {
		name string
		// more adds refs (and pull requests) to the queue.
		more func(w *workspace)
		log  []string
	}{
		{name: "three entries in flight"},
		{name: "a ref names a closed pull request", more: func(w *workspace) {
			w.gh.AddPullRequest(githubtest.PR{Number: 42, HeadSHA: "4242424242424242424242424242424242424242", BaseRef: "main", State: "closed"})
			w.gh.SetRef(owner, repo, queueRef("42", squash9), squash8)
			w.gh.SetRef(owner, repo, "refs/heads/gh-readonly-queue/main/tmp", squash9)
			w.gh.SetRef(owner, repo, "refs/heads/gh-readonly-queue/main-2/pr-42-"+queueBase, squash9)
		}, log: []string{
			"::warning::the merge queue's ref gh-readonly-queue/main/pr-42-" + squash9 + " names pull request #42, which is not an open pull request into main; its review does not count",
			"::warning::ignored ref refs/heads/gh-readonly-queue/main/tmp: it is not a merge queue entry's (gh-readonly-queue/main/pr-<number>-<sha>)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, stub := squashQueueWorkspace(t, gateDiff(t, "testdata/deploy/diff-safe.json"))
			if tc.more != nil {
				tc.more(w)
			}
			w.onMergeGroup()
			res, check := w.verifyGroup(0, "", "success")
			stub.AssertAllUsed(t)
			assert.Equal(t, check.Output.Title, "Every change of the group is reviewed")
			assert.Assert(t, is.Contains(res.stdout, "Every change is one reviewed in pull requests #8, #9 and #10."))
			for _, s := range []string{check.Output.Summary, res.summary} {
				for _, pr := range []string{"`#8` reviewed at `8888888`: ✅", "`#9` reviewed at `2929292`: ✅", "`#10` reviewed at `3030303`: ✅"} {
					assert.Assert(t, is.Contains(s, pr))
				}
				assert.Assert(t, !strings.Contains(s, "#42"), "a closed pull request's ref names no pull request of the group")
			}
			for _, l := range tc.log {
				assert.Assert(t, is.Contains(res.stdout, l))
			}
			if tc.log == nil {
				assert.Assert(t, !strings.Contains(res.stdout, "gh-readonly-queue"), res.stdout)
			}
		})
	}
}

// The middle entry's review no longer covers its change (another merge
// moved the topic #8 reviewed): the third group's check fails, naming #8
// and why, the others standing.
func TestMergeQueueSquashedGroupAReviewNoLongerCovers(t *testing.T) {
	w, stub := squashQueueWorkspace(t, gateDiff(t, movedTopicDiff(t)))
	w.onMergeGroup()
	res, check := w.verifyGroup(1, "diff-changed", "failure")
	stub.AssertAllUsed(t)
	assert.Equal(t, check.Output.Title, "Group refused: Diff changed since review")
	assert.Assert(t, is.Contains(res.stdout, "update TopicBFC7AF6E.DisplayName in StackA starts from another value than pull request #8 reviewed (it changed since the review)"))
	for _, s := range []string{check.Output.Summary, res.summary} {
		assert.Assert(t, is.Contains(s, "- `#8` reviewed at `8888888`: ⛔ `diff-changed` Its review no longer covers what would deploy"))
		assert.Assert(t, is.Contains(s, "- `#9` reviewed at `2929292`: ✅"))
		assert.Assert(t, is.Contains(s, "- `#10` reviewed at `3030303`: ✅"))
	}
}

// When GitHub's list of the queue's refs answers [] (not even the group's
// own ref, which the event names), the squash commits of the groups ahead
// belong to no pull request the action can find: the check says that,
// instead of reading their changes as unreviewed and blaming the group's
// own pull request, whose diff did not change.
func TestMergeQueueSquashedGroupWithNoRefsListed(t *testing.T) {
	w, stub := queuedPRs(t)
	w.gh.SetCommits(owner, repo, "main", groupHead, squash9, squash8, groupHead)
	w.onMergeGroup()
	w.gh.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpListMatchingRefs, Status: 200, Body: "[]"})
	res, check := w.verifyGroup(1, "no-reviewed-diff", "failure")
	stub.AssertAllUsed(t)
	assert.Equal(t, check.Output.Title, "Group refused: No reviewed diff")
	want := "commits 9191919, 8181818 of the group belong to no pull request the action can find: GitHub associates no pull request with them (as with the commits a queue that squashes or rebases writes), " +
		"and GitHub's list of the merge queue's refs (gh-readonly-queue/main/), which would name the entry that wrote each, answered none, not even the group's own ref"
	assert.Assert(t, is.Contains(res.stdout, want), res.stdout)
	for _, s := range []string{res.stdout, check.Output.Summary, res.summary} {
		assert.Assert(t, !strings.Contains(s, "Diff changed since review"), s)
	}
}
