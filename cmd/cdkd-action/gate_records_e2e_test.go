package main

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// What the gate reads from GitHub, and the records its own runs leave:
// GitHub failing is not "no review", and a deploy run that lost part of
// what it wrote does not make its re-run read its own section as an edit.

// deployAgain is the cdkd a deploy that goes ahead runs.
func deployAgain(t *testing.T) []cdkdtest.Invocation {
	t.Helper()
	return append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)},
		resultInvocations(t, "events-StackA-run.json")...)
}

// A read the gate depends on that fails (the check runs, while GitHub is
// down) is api-failed, exit 3, not no-reviewed-diff: re-running the deploy
// later is the fix, not re-reviewing.
func TestDeployGitHubDownIsNotNoReview(t *testing.T) {
	faults := map[string]githubtest.Fault{
		"a persistent 500 listing check runs": {Times: 1000, Operation: githubtest.OpListCheckRunsForRef, Status: 500},
		"every answer cut off":                {Times: 1000, Operation: githubtest.OpListCheckRunsForRef, Reset: true},
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json")) // the review only
			w.review(reviewedSHA, diffInputs())
			w.gh.Inject(f)
			res := w.run(deployInputs())
			assert.Equal(t, res.code, 3, res.stdout)
			assert.Equal(t, res.outputs["failure-reason"], "api-failed")
			assert.Equal(t, res.outputs["deployed"], "false")
			assert.Assert(t, is.Contains(res.stdout, "read the diff check runs on 8888888 to verify the review"))
			assert.Assert(t, !strings.Contains(res.stdout, "no-reviewed-diff"), res.stdout)
			assert.Assert(t, res.summary != "", "the job summary is written")
			stub.AssertAllUsed(t)
		})
	}
}

// A deploy whose check run could not be written (GitHub answered 502), or
// whose edit of the review comment lost its answer, leaves nothing its
// re-run reads as an edited review: the section is recorded before it is
// written, and never written into the review without its record.
func TestDeployRerunAfterALostWrite(t *testing.T) {
	faults := map[string]githubtest.Fault{
		"the check run not created":           {Times: 1000, Operation: githubtest.OpCreateCheckRun, Status: 502},
		"the section's answer lost":           {Times: 1, Operation: githubtest.OpUpdateIssueComment, Status: 502, Apply: true},
		"the section's answer cut off":        {Times: 1, Operation: githubtest.OpUpdateIssueComment, Reset: true, Apply: true},
		"the section applied, all else fails": {Times: 1000, Operation: githubtest.OpUpdateIssueComment, Status: 502, Apply: true},
	}
	for name, f := range faults {
		t.Run(name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json")}, deployAgain(t)...)...)
			w.review(reviewedSHA, diffInputs())
			w.gh.Inject(f)
			first := w.run(deployInputs())
			assert.Equal(t, first.outputs["deployed"], "true", first.stdout)
			w.gh.ClearFaults()

			stub := w.stub(deployAgain(t)...)
			again := w.run(deployInputs())
			assert.Equal(t, again.code, 0, again.stdout)
			assert.Equal(t, again.outputs["deployed"], "true")
			assert.Assert(t, !strings.Contains(again.stdout, "was edited"), again.stdout)
			stub.AssertAllUsed(t)
		})
	}
}

// One head proposed to two branches, diffed in both pull requests with the
// same label: the newer check run names the other pull request's comment.
// The deploy of the first reads its own pull request's record.
func TestDeploySameHeadInTwoPullRequests(t *testing.T) {
	const (
		head    = "6666666666666666666666666666666666666666"
		release = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		merged  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	)
	w := newWorkspace(t)
	w.createdFromAssembly()
	w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: head, HeadRef: "rename-queue", BaseRef: "main", Merged: true, MergeCommitSHA: merged})
	w.gh.AddPullRequest(githubtest.PR{Number: 6, HeadSHA: head, HeadRef: "rename-queue", BaseRef: "release", MergeCommitSHA: release})
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json")}, deployAgain(t)...)...)
	w.reviewPR(deployPR, "main", head, diffInputs())
	w.reviewPR(6, "release", head, diffInputs()) // the newest diff check run on the head names #6's comment
	w.vars["GITHUB_SHA"] = merged

	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["deployed"], "true")
	stub.AssertAllUsed(t)
	ours := prComment(t, w.gh)
	c, _ := prcomment.Parse(ours.Body)
	assert.Assert(t, c.Deploy != "", "the outcome goes to #8's review comment")
}
