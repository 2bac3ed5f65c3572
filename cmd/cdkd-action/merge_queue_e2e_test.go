package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// A merge queue checks the group before it merges: `command: verify` on
// merge_group diffs the group's head and judges it against the reviews of
// the group's pull requests, as the deploy would, in the "cdkd merge
// queue" check run on the group's head that a ruleset requires; each pull
// request's diff writes the same check on its head, so it may enter the
// queue.

const (
	queueBase  = "1010101010101010101010101010101010101010" // main when the group was built
	queueHead9 = "2929292929292929292929292929292929292929"
	queueHead0 = "3030303030303030303030303030303030303030" // #10's head
	queueM8    = "4848484848484848484848484848484848484848" // the queue's merge commits
	queueM9    = "4949494949494949494949494949494949494949"
	groupHead  = "5050505050505050505050505050505050505050" // the group's head: #10's merge commit
)

// queueWorkspace has pull requests #8, #9 and #10 open into main, each
// reviewed with its own part of diff-safe.json (a topic's update, a queue's
// creation, StackB), and a merge group of the three built by merge
// commits: the compare of main...group lists each head and merge commit.
func queueWorkspace(t *testing.T, extra ...cdkdtest.Invocation) (*workspace, *cdkdtest.Stub) {
	t.Helper()
	w, stub := queuedPRs(t, extra...)
	w.gh.SetCommits(owner, repo, "main", groupHead, reviewedSHA, queueM8, queueHead9, queueM9, queueHead0, groupHead)
	return w, stub
}

// queuedPRs has pull requests #8, #9 and #10 open into main, each reviewed
// with its own part of diff-safe.json (a topic's update, a queue's
// creation, StackB); the group's commits are the caller's.
func queuedPRs(t *testing.T, extra ...cdkdtest.Invocation) (*workspace, *cdkdtest.Stub) {
	t.Helper()
	w := newWorkspace(t)
	w.createdFromAssembly()
	w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: reviewedSHA, HeadRef: "a", BaseRef: "main"})
	w.gh.AddPullRequest(githubtest.PR{Number: 9, HeadSHA: queueHead9, HeadRef: "b", BaseRef: "main"})
	w.gh.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: queueHead0, HeadRef: "c", BaseRef: "main"})
	topic := diffPart(t, w.dir, "topic.json", func(_, id string) bool { return id == "TopicBFC7AF6E" })
	queue := diffPart(t, w.dir, "queue.json", func(_, id string) bool { return id == "NewQueue1C62264E" })
	param := diffPart(t, w.dir, "param.json", func(stack, _ string) bool { return stack == "StackB" })
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, topic), gateDiff(t, queue), gateDiff(t, param)}, extra...)...)
	w.reviewPR(deployPR, "main", reviewedSHA, queueDiffInputs())
	w.reviewPR(9, "main", queueHead9, queueDiffInputs())
	w.reviewPR(10, "main", queueHead0, queueDiffInputs())
	return w, stub
}

// onMergeGroup makes the next step run on the merge_group event of the
// group of #8-#10 into main (the queue named it after #10, the last it
// adds), as GitHub's real payload gives it.
func (w *workspace) onMergeGroup() { w.onMergeGroupInto("main") }

// onMergeGroupInto is onMergeGroup for a group into branch.
func (w *workspace) onMergeGroupInto(branch string) {
	w.t.Helper()
	path := filepath.Join(w.dir, "merge-group-event.json")
	writeFile(w.t, path, fmt.Sprintf(`{"action":"checks_requested","merge_group":{"head_sha":%q,"head_ref":"refs/heads/gh-readonly-queue/%s/pr-10-%s","base_sha":%q,"base_ref":"refs/heads/%s"}}`,
		groupHead, branch, queueBase, queueM9, branch))
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"], w.vars["GITHUB_SHA"] = "merge_group", path, groupHead
	delete(w.vars, "GITHUB_REF") // the runner's: the group's own ref
	// The ref the event names exists while its group is checked, and
	// GitHub lists it among the queue's.
	w.gh.SetRef(owner, repo, fmt.Sprintf("refs/heads/gh-readonly-queue/%s/pr-10-%s", branch, queueBase), groupHead)
}

func verifyInputs() map[string]string {
	return map[string]string{"command": "verify", "all": "true", "mask-values": maskValues}
}

// verifyGroup runs verify on the merge group, checks that it ended with
// exit code and failure-reason and wrote one check run on the group's
// head with conclusion, and returns the step and that check run.
func (w *workspace) verifyGroup(code int, reason, conclusion string) (result, githubtest.CheckRun) {
	w.t.Helper()
	res := w.run(verifyInputs())
	assert.Equal(w.t, res.code, code, res.stdout)
	assert.Equal(w.t, res.outputs["failure-reason"], reason)
	runs := checkRunsOn(w.gh, "cdkd merge queue", groupHead)
	assert.Assert(w.t, is.Len(runs, 1), "one required check on the group's head")
	assert.Equal(w.t, runs[0].Conclusion, conclusion)
	return res, runs[0]
}

// checkRunsOn are the check runs named name on sha.
func checkRunsOn(gh *githubtest.Server, name, sha string) []githubtest.CheckRun {
	var out []githubtest.CheckRun
	for _, cr := range gh.CheckRuns() {
		if cr.Name == name && cr.HeadSHA == sha {
			out = append(out, cr)
		}
	}
	return out
}

// A group of three, each change reviewed in its own pull request: the
// check passes on the group's head, naming the three. Every pull request's
// head carries the same check, written by its diff. The group merges (the
// queue fast-forwards main to its head) and the deploy of that push finds
// each review through the diff's own check run, not the queue's.
func TestMergeQueueGroupOfThree(t *testing.T) {
	w, stub := queueWorkspace(t, append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the group's check
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the deploy's gate
		deployInvocation(t),
	}, resultInvocations(t, "events-StackA-run.json")...)...)

	for _, head := range []string{reviewedSHA, queueHead9, queueHead0} {
		runs := checkRunsOn(w.gh, "cdkd merge queue", head)
		assert.Assert(t, is.Len(runs, 1), "the pull request's diff writes the required check on its head %s", head)
		assert.Equal(t, runs[0].Conclusion, "success")
		assert.Equal(t, runs[0].ExternalID, "", "it records no review: the diff's own check run does")
		assert.Assert(t, is.Contains(runs[0].Output.Summary, "The real check runs in the merge queue"))
		assert.Assert(t, is.Len(checkRunsOn(w.gh, "cdkd diff", head), 1))
	}

	w.onMergeGroup()
	res, check := w.verifyGroup(0, "", "success")
	assert.Equal(t, check.Output.Title, "Every change of the group is reviewed")
	assert.Assert(t, is.Contains(res.stdout, "Every change of the group is reviewed: Every change is one reviewed in pull requests #8, #9 and #10."))
	for _, s := range []string{check.Output.Summary, res.summary} {
		assert.Assert(t, is.Contains(s, "### cdkd merge queue"))
		assert.Assert(t, is.Contains(s, "Every change is one reviewed in pull requests <code>&#35;8,</code> <code>&#35;9</code> and <code>&#35;10.</code>"))
		for _, pr := range []string{"`#8` reviewed at `8888888`", "`#9` reviewed at `2929292`", "`#10` reviewed at `3030303`"} {
			assert.Assert(t, is.Contains(s, pr))
		}
	}
	assert.Assert(t, is.Len(checkRunsOn(w.gh, "cdkd deploy", groupHead), 0), "nothing deployed")

	// The queue merges the group: main moves to its head in one push.
	w.gh.MergePullRequest(owner, repo, deployPR, queueM8)
	w.gh.MergePullRequest(owner, repo, 9, queueM9)
	w.gh.MergePullRequest(owner, repo, 10, groupHead)
	w.gh.SetCommits(owner, repo, queueBase, groupHead, reviewedSHA, queueM8, queueHead9, queueM9, queueHead0, groupHead)
	push := filepath.Join(w.dir, "push-group.json")
	writeFile(t, push, `{"ref":"refs/heads/main","before":"`+queueBase+`","after":"`+groupHead+`"}`)
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"], w.vars["GITHUB_SHA"], w.vars["GITHUB_REF"] = "push", push, groupHead, "refs/heads/main"
	dep := w.run(deployInputs())
	assert.Equal(t, dep.code, 0, dep.stdout)
	assert.Equal(t, dep.outputs["deployed"], "true")
	assert.Assert(t, is.Contains(dep.summary, "Every change is one reviewed in pull requests <code>&#35;8,</code> <code>&#35;9</code> and <code>&#35;10.</code>"))
	stub.AssertAllUsed(t)
}

// The base moved under a queued pull request: the topic #8 reviewed from
// one display name now starts from another, so #8's review no longer
// covers what the group would deploy. The check fails on the group's head,
// naming #8 and why, and the queue removes the group instead of the deploy
// refusing it after the merge.
func TestMergeQueueRemovesAGroupAReviewNoLongerCovers(t *testing.T) {
	w, stub := queueWorkspace(t, gateDiff(t, movedTopicDiff(t)))

	w.onMergeGroup()
	res, check := w.verifyGroup(1, "diff-changed", "failure")
	stub.AssertAllUsed(t)
	assert.Equal(t, check.Output.Title, "Group refused: Diff changed since review")
	assert.Assert(t, is.Contains(res.stdout, "update TopicBFC7AF6E.DisplayName in StackA starts from another value than pull request #8 reviewed (it changed since the review)"))
	const why = "update TopicBFC7AF6E.DisplayName in StackA starts from another value than pull request <code>&#35;8</code> reviewed"
	for _, s := range []string{check.Output.Summary, res.summary} {
		assert.Assert(t, is.Contains(s, why))
	}
	assert.Assert(t, is.Contains(res.summary, "The deploy of this group would be refused, so the merge queue removes it"))
	// Not listed against #8's change set alone: #9's queue would read as new.
	assert.Assert(t, is.Contains(res.summary, "Several pull requests' reviews count here"))
	assert.Assert(t, !strings.Contains(res.summary, "**new** resource `NewQueue1C62264E`"), res.summary)
	for _, s := range []string{check.Output.Summary, res.summary} {
		assert.Assert(t, is.Contains(s, "- `#8` reviewed at `8888888`: ⛔ `diff-changed` Its review no longer covers what would deploy: update TopicBFC7AF6E.DisplayName in StackA starts from another value (it changed since the review)."))
		assert.Assert(t, is.Contains(s, "- `#9` reviewed at `2929292`: ✅"))
		assert.Assert(t, is.Contains(s, "- `#10` reviewed at `3030303`: ✅"))
	}
}

// movedTopicDiff is diff-safe.json where the topic #8 reviewed from one
// display name now starts from another: another merge moved the base.
func movedTopicDiff(t *testing.T) string {
	t.Helper()
	var stacks []map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, "testdata/deploy/diff-safe.json")), &stacks))
	stacks[0]["changes"].([]any)[0].(map[string]any)["propertyChanges"].([]any)[0].(map[string]any)["oldValue"] = "renamed-by-another-merge"
	raw, err := json.Marshal(stacks)
	assert.NilError(t, err)
	moved := filepath.Join(t.TempDir(), "moved.json")
	writeFile(t, moved, string(raw))
	return moved
}

// verify outside a merge group is bad input, said in one sentence; the job
// summary still says why.
func TestVerifyNeedsAMergeGroup(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.onPush()
	res := w.run(verifyInputs())
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	const msg = "input command: verify checks a merge queue's group and runs on a merge_group event (on: merge_group)"
	assert.Assert(t, is.Contains(res.stdout, msg))
	assert.Assert(t, is.Contains(res.summary, "cdkd verify failed"))
	assert.Assert(t, is.Contains(res.summary, "verify checks a merge queue's group"))
	assert.Assert(t, !strings.Contains(res.stdout, "panic"))
}

// reportRuns are the check runs that carry a report (a diff's, a drift's,
// a deploy's): every one but the merge queue's required check, which a
// pull request's diff writes beside its own.
// queueDiffInputs are a pull request diff's inputs where a merge queue
// runs verify: the diff writes the queue's required check too.
func queueDiffInputs() map[string]string {
	in := diffInputs()
	in["merge-queue"] = "true"
	return in
}

func reportRuns(gh *githubtest.Server) []githubtest.CheckRun {
	var out []githubtest.CheckRun
	for _, cr := range gh.CheckRuns() {
		if !strings.HasPrefix(cr.Name, "cdkd merge queue") {
			out = append(out, cr)
		}
	}
	return out
}

// A queue that squashes writes a commit GitHub associates with no pull
// request: the group's ref names the one it adds. Deletes and replacements
// are judged as the deploy would: refused unless the label is on the pull
// request whose review holds them, so the queue admits nothing the deploy
// would refuse.
func TestMergeQueueSquashedGroupAndDestructiveChanges(t *testing.T) {
	const v2 = "../../testdata/fixtures/diff-v2.json" // deletes ExtraTopic, replaces Queue (QueueName)
	const squashed = "6060606060606060606060606060606060606060"
	for _, tc := range []struct {
		name   string
		labels []string
		code   int
		reason string
		branch string
		// conclusion is the check run's.
		conclusion string
	}{
		{name: "no label", code: 1, reason: "destructive-refused", conclusion: "failure"},
		{name: "labelled, into a branch with a slash", labels: []string{"cdkd:allow-destructive"}, code: 0, branch: "release/v2", conclusion: "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			branch := cmp.Or(tc.branch, "main")
			w := newWorkspace(t)
			w.createdFromAssembly()
			w.gh.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: queueHead0, HeadRef: "c", BaseRef: branch})
			w.gh.SetCommits(owner, repo, branch, groupHead, squashed, groupHead)
			stub := w.stub(gateDiff(t, v2), gateDiff(t, v2))
			w.reviewPR(10, branch, queueHead0, diffInputs())
			// A writer labels it after its diff posted the review.
			w.writers("carol")
			for _, l := range tc.labels {
				w.gh.LabelPullRequest(owner, repo, 10, l, "carol")
			}
			w.onMergeGroupInto(branch)
			res, check := w.verifyGroup(tc.code, tc.reason, tc.conclusion)
			stub.AssertAllUsed(t)
			assert.Assert(t, is.Contains(res.summary, "- `#10` reviewed at `3030303`: ✅"), "found by the group's ref")
			if tc.code == 0 {
				assert.Assert(t, is.Contains(res.summary, "✅ allowed by the pull request label cdkd:allow-destructive"))
				return
			}
			assert.Equal(t, check.Output.Title, "Group refused: Destructive changes refused")
			assert.Assert(t, is.Contains(res.summary, "⛔ **refused**: ♻️ **replace** `Queue4A7E3555` (`AWS::SQS::Queue`) in `StackA`, forced by `QueueName`"))
		})
	}
}

// A pull request pushed to after its review, queued at its new head: its
// review is stale, the group is refused (stale-review) and the check names
// that pull request, the others standing.
func TestMergeQueueNamesAStaleReview(t *testing.T) {
	const pushed = "7070707070707070707070707070707070707070"
	w, stub := queueWorkspace(t)
	w.gh.PushToPullRequest(owner, repo, 9, pushed)
	w.gh.SetCommits(owner, repo, "main", groupHead, reviewedSHA, queueM8, queueHead9, pushed, queueM9, queueHead0, groupHead)
	w.onMergeGroup()
	res, check := w.verifyGroup(1, "stale-review", "failure")
	stub.AssertAllUsed(t)
	assert.Assert(t, is.Contains(res.stdout, "The diff on pull request #9 was reviewed at 2929292, but the pull request's final head is 7070707"))
	assert.Assert(t, is.Contains(check.Output.Summary, "- `#9` reviewed at `2929292`: ⛔ `stale-review`"))
	assert.Assert(t, is.Contains(check.Output.Summary, "- `#8` reviewed at `8888888`: ✅"))
}

// GitHub failing to list the group's commits, or the queue's refs (a
// squash queue's groups ahead are found by them), is not "no review":
// verify stops with api-failed (exit 3), and its job summary and check run
// say why; nothing is judged.
func TestMergeQueueAPIFailure(t *testing.T) {
	for _, tc := range []struct{ op, why string }{
		{githubtest.OpCompareCommits, "list the commits the merge group adds to main"},
		{githubtest.OpListMatchingRefs, "list the merge queue's refs of main (gh-readonly-queue/main/) to find the pull requests of the groups ahead (the job needs contents: read)"},
	} {
		t.Run(tc.op, func(t *testing.T) {
			w, stub := queueWorkspace(t)
			w.gh.Inject(githubtest.Fault{Times: 100, Operation: tc.op, Status: 502})
			w.onMergeGroup()
			res, check := w.verifyGroup(3, "api-failed", "failure")
			stub.AssertAllUsed(t)
			assert.Assert(t, is.Contains(res.summary, tc.why))
			assert.Equal(t, check.Output.Title, "Merge queue check failed: Could not read the review")
		})
	}
}

// The diff command in a merge_group job judges nothing: it says to run
// verify, and writes no merge queue check a ruleset could take for one.
func TestDiffOnAMergeGroupSaysToVerify(t *testing.T) {
	w := newWorkspace(t)
	w.createdFromAssembly()
	stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.onMergeGroup()
	res := w.run(diffInputs())
	stub.AssertAllUsed(t)
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::command diff on a merge_group event reports the group's diff but checks it against no review"))
	assert.Assert(t, is.Len(checkRunsOn(w.gh, "cdkd merge queue", groupHead), 0))
}

// The queue's check is written on a pull request's head only where the
// workflow says a merge queue runs verify (merge-queue: true): any other
// repository's pull requests get their cdkd diff check run and no other.
func TestDiffWritesTheQueueCheckOnlyWhereAsked(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]string
		want int
	}{
		{"default", diffInputs(), 0},
		{"merge-queue: true", queueDiffInputs(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
			w.review(reviewedSHA, tc.in)
			assert.Assert(t, is.Len(checkRunsOn(w.gh, "cdkd merge queue", reviewedSHA), tc.want))
			assert.Assert(t, is.Len(checkRunsOn(w.gh, "cdkd diff", reviewedSHA), 1))
		})
	}
}
