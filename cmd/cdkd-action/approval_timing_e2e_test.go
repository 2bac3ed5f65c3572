package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// An approval approves what was on screen when it was given (#44): each
// case runs the merge queue's check and the deploy of the group's push
// (runQueueThenDeploy), which, given the same reviews and labels, give the
// same answer.

// earlierHead is a head of #10 before the one the queue merges.
const earlierHead = "1414141414141414141414141414141414141414"

// reviewedEarlier is #10 reviewed at earlierHead with a change set that
// opens nothing (diff-safe.json), then approved by approve, then pushed
// to queueHead0, whose diff (runQueueThenDeploy's) opens port 22.
func reviewedEarlier(approve func(w *workspace)) func(w *workspace) {
	return func(w *workspace) {
		w.t.Helper()
		w.writers("carol", "alice")
		w.gh.PushToPullRequest(owner, repo, 10, earlierHead)
		w.stub(gateDiff(w.t, "testdata/deploy/diff-safe.json"))
		w.reviewPR(10, "main", earlierHead, diffInputs())
		approve(w)
		w.gh.PushToPullRequest(owner, repo, 10, queueHead0)
	}
}

// reviewedTwiceAtOneHead is #10 reviewed at queueHead0 with a change set
// that opens nothing, then approved by approve; runQueueThenDeploy's diff
// then runs again at the same head (reopened: the merge with a base that
// moved) and shows port 22 opened.
func reviewedTwiceAtOneHead(approve func(w *workspace)) func(w *workspace) {
	return func(w *workspace) {
		w.t.Helper()
		w.writers("carol", "alice")
		w.stub(gateDiff(w.t, "testdata/deploy/diff-safe.json"))
		w.reviewPR(10, "main", queueHead0, diffInputs())
		approve(w)
	}
}

func label(login string) func(w *workspace) {
	return func(w *workspace) { w.gh.LabelPullRequest(owner, repo, 10, "security-approved", login) }
}

// relabel removes the label and adds it again, as a reviewer approving the
// review now on screen does.
func relabel(login string) func(w *workspace) {
	return func(w *workspace) {
		w.gh.RemoveLabelEvent(owner, repo, 10, "security-approved", login, time.Time{})
		label(login)(w)
	}
}

// #44 class 1: a label is tied to the review of the last push.
func TestLabelApprovesTheReviewOfTheLastPush(t *testing.T) {
	for _, c := range []approvalCase{
		{name: "a label added while the review showed an earlier push approves nothing after the push",
			before: reviewedEarlier(label("carol")),
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says: []string{`the label "security-approved" was added by carol at `, "before the review it would approve was posted: the diff check run",
				"the first to complete that records its digest for 3030303, completed at"}},
		{name: "an APPROVED review of the earlier head approves nothing either",
			before: reviewedEarlier(func(w *workspace) { approve(w, 10, "alice") }),
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says: []string{"alice approved 1414141, not the reviewed head 3030303"}},
		{name: "the label added by a writer after the diff of the last push approves",
			before: reviewedEarlier(label("carol")), seed: relabel("carol"),
			inputs: []string{"require-approval", "broadening"},
			says:   []string{`approved with the label "security-approved" by carol`}},
	} {
		t.Run(c.name, func(t *testing.T) { runQueueThenDeploy(t, c) })
	}
}

// #44 class 2: an approval does not count for changes the review showed
// only after it was given; a re-run showing another digest at the same
// head needs a new approval.
func TestApprovalPredatingTheReviewDoesNotCount(t *testing.T) {
	for _, c := range []approvalCase{
		{name: "an approval given before a re-run at the same head showed port 22 is refused",
			before: reviewedTwiceAtOneHead(func(w *workspace) { approve(w, 10, "alice") }),
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says: []string{"alice approved at ", "before the review it would approve was posted", "An approval covers only what was on screen when it was given; approve again"}},
		{name: "required-approvals is refused alike",
			before: reviewedTwiceAtOneHead(func(w *workspace) { approve(w, 10, "alice") }),
			inputs: []string{"required-approvals", "1"}, reason: "approvals-missing",
			says: []string{"pull request #10 has 0 approving reviews of its reviewed head 3030303 that count (none)", "alice approved at "}},
		{name: "the label added before the re-run is refused alike",
			before: reviewedTwiceAtOneHead(label("carol")),
			inputs: []string{"require-approval", "broadening"}, reason: "broadening-refused",
			says: []string{`the label "security-approved" was added by carol at `}},
		{name: "an approval given after the latest review deploys",
			before: reviewedTwiceAtOneHead(func(w *workspace) { approve(w, 10, "alice") }),
			seed:   func(w *workspace) { approve(w, 10, "alice") },
			inputs: []string{"require-approval", "broadening"},
			says:   []string{"Approved by alice (reviews of 3030303)."}},
	} {
		t.Run(c.name, func(t *testing.T) { runQueueThenDeploy(t, c) })
	}
}

// #44 class 2, the other way round: a re-run that shows the same digest
// keeps an approval valid.
func TestApprovalSurvivesARerunWithTheSameDigest(t *testing.T) {
	runQueueThenDeploy(t, approvalCase{
		before: func(w *workspace) {
			w.writers("alice")
			w.stub(gateDiff(w.t, broadeningFixture))
			w.reviewPR(10, "main", queueHead0, diffInputs())
			approve(w, 10, "alice")
		},
		inputs: []string{"require-approval", "broadening"},
		says:   []string{"Approved by alice (reviews of 3030303)."}})
}

// #44 class 1, the destructive label: the pull request's author cannot
// allow their own delete by label, and a label added for one push allows
// nothing pushed after it; a writer's label after the review of the last
// push does.
func TestDestructiveLabelFollowsTheApprovalRules(t *testing.T) {
	const v2 = "../../testdata/fixtures/diff-v2.json" // deletes ExtraTopic, replaces Queue (QueueName)
	t.Run("the author's own label allows nothing", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.stub(gateDiff(t, v2), gateDiff(t, v2))
		w.review(reviewedSHA, diffInputs())
		w.mergeLater()
		w.gh.LabelNow(owner, repo, deployPR, "cdkd:allow-destructive", githubtest.DefaultAuthor)
		refused(t, w, "destructive-refused", `Not counted: the label "cdkd:allow-destructive" was added by the pull request's author, `+githubtest.DefaultAuthor+".")
	})
	t.Run("a label added for an earlier push allows nothing pushed after it", func(t *testing.T) {
		w := newDeployWorkspace(t, laterSHA)
		w.writers("carol")
		w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.review(laterSHA, diffInputs())
		w.mergeLater()
		w.gh.LabelNow(owner, repo, deployPR, "cdkd:allow-destructive", "carol")
		w.gh.PushToPullRequest(owner, repo, deployPR, reviewedSHA)
		w.stub(gateDiff(t, v2), gateDiff(t, v2))
		w.review(reviewedSHA, diffInputs())
		refused(t, w, "destructive-refused", `the label "cdkd:allow-destructive" was added by carol at `, "before the review it would approve was posted")
	})
	t.Run("a writer's label after the review of the last push allows it", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.writers("carol")
		w.stub(append([]cdkdtest.Invocation{gateDiff(t, v2), gateDiff(t, v2), deployInvocation(t)}, resultInvocations(t, "events-StackA-run.json")...)...)
		w.review(reviewedSHA, diffInputs())
		w.mergeLater()
		w.gh.LabelNow(owner, repo, deployPR, "cdkd:allow-destructive", "carol")
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Assert(t, is.Contains(res.summary, "✅ allowed by the pull request label cdkd:allow-destructive"))
	})
}

// #44 class 5: a label's state at the merge counts, whatever happens to
// it later: removed after the merge, it still approves when the deploy is
// run again; removed before the merge, it approves nothing.
func TestLabelStateAtTheMergeCounts(t *testing.T) {
	const fixture = "testdata/deploy/diff-broadening.json"
	for _, tc := range []struct {
		name    string
		removed time.Time
		reason  string
	}{
		{"removed after the merge, it still approves", mergedLater.Add(time.Hour), ""},
		{"removed before the merge, it approves nothing", mergedLater.Add(-time.Hour), "broadening-refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			w.writers("carol")
			copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
			w.stub(append([]cdkdtest.Invocation{gateDiff(t, fixture), gateDiff(t, fixture), deployInvocation(t)}, resultInvocations(t, "events-StackA-run.json")...)...)
			w.review(reviewedSHA, diffInputs())
			w.mergeLater()
			w.gh.LabelNow(owner, repo, deployPR, "security-approved", "carol")
			res := w.run(deployInputs("require-approval", "broadening"))
			assert.Equal(t, res.code, 0, res.stdout)
			assert.Assert(t, is.Contains(res.summary, `approved with the label "security-approved" by carol`))

			w.gh.RemoveLabelEvent(owner, repo, deployPR, "security-approved", "mallory", tc.removed)
			rerun := []cdkdtest.Invocation{gateDiff(t, fixture)}
			if tc.reason == "" {
				rerun = append(rerun, deployInvocation(t))
				rerun = append(rerun, resultInvocations(t, "events-StackA-run.json")...)
			}
			w.stub(rerun...)
			again := w.run(deployInputs("require-approval", "broadening"))
			assert.Equal(t, again.outputs["failure-reason"], tc.reason, again.stdout)
			if tc.reason == "" {
				assert.Assert(t, is.Contains(again.summary, `approved with the label "security-approved" by carol`))
			}
		})
	}
}

// The diff comment names the approvals given before it: they do not
// approve it. A re-run showing the same digest keeps an approval given
// after that digest was first shown, and names none.
func TestDiffCommentNamesEarlyApprovals(t *testing.T) {
	w := newWorkspace(t)
	copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
	w.gh.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: queueHead0, HeadRef: "c", BaseRef: "main"})
	w.writers("alice", "carol")
	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.reviewPR(10, "main", queueHead0, diffInputs())
	assert.Assert(t, !strings.Contains(w.gh.Comments(owner, repo, 10)[0].Body, "Given before this review"))
	approve(w, 10, "alice")
	w.gh.LabelPullRequest(owner, repo, 10, "security-approved", "carol")

	// The base moved: the same head now shows port 22 opened.
	w.stub(gateDiff(t, broadeningFixture))
	w.reviewPR(10, "main", queueHead0, diffInputs())
	body := w.gh.Comments(owner, repo, 10)[0].Body
	assert.Assert(t, is.Contains(body, `Given before this review of 3030303, and so not approving it (an approval approves what was on screen when it was given): alice's APPROVED review; the label "security-approved", added by carol. Approve again after reading this review.`))

	// Approved again after reading it; a re-run showing the same digest
	// names nothing.
	approve(w, 10, "alice")
	w.gh.RemoveLabelEvent(owner, repo, 10, "security-approved", "carol", time.Time{})
	w.stub(gateDiff(t, broadeningFixture))
	w.reviewPR(10, "main", queueHead0, diffInputs())
	assert.Assert(t, !strings.Contains(w.gh.Comments(owner, repo, 10)[0].Body, "Given before this review"))
}
