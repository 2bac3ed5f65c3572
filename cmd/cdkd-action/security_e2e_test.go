package main

import (
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// beforeMerge is a time before the fake's merge of #8 (its clock starts in
// 2024), and before any diff it runs.
var beforeMerge = time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)

// mergedLater is when #8 merged for a test that approves it after its diff
// (the fake's clock ticks a second a call from 2024-01-02): an approval
// counts only between the diff check run that posted the review and the
// merge.
var mergedLater = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// mergeLater moves #8's seeded merge to mergedLater, after what the test
// does now.
func (w *workspace) mergeLater() {
	w.t.Helper()
	w.gh.MergeAt(owner, repo, deployPR, mergedLater)
}

// A pull request that opens SSH to the internet: the review shows it as a
// broadening security change; with require-approval: broadening the deploy
// is refused, naming the row, until someone other than the author approved
// it before the merge.
func TestSecurityBroadeningRefusedThenApproved(t *testing.T) {
	const fixture = "testdata/deploy/diff-broadening.json"
	approved := func(t *testing.T, w *workspace, extra ...string) result {
		t.Helper()
		w.stub(append([]cdkdtest.Invocation{gateDiff(t, fixture), deployInvocation(t)}, resultInvocations(t, "events-StackA-run.json")...)...)
		res := w.run(deployInputs(append([]string{"require-approval", "broadening"}, extra...)...))
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["deployed"], "true")
		return res
	}
	reviewed := func(t *testing.T) *workspace {
		t.Helper()
		w := newDeployWorkspace(t, reviewedSHA)
		w.writers("alice", "carol")
		// The assembly places the values, so the rule shows.
		copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
		w.stub(gateDiff(t, fixture))
		w.onPullRequest(reviewedSHA)
		res := w.run(diffInputs())
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["security-changes"], "1")
		assert.Equal(t, res.outputs["broadening"], "true")
		body := prComment(t, w.gh).Body
		assert.Assert(t, is.Contains(body, "### 🔐 Security changes"))
		assert.Assert(t, is.Contains(body, "🚩 ingress open to the internet"))
		assert.Assert(t, is.Contains(res.summary, "### 🔐 Security changes"), "the job summary carries the table too")
		assert.Assert(t, is.Contains(diffCheck(t, w.gh).Output.Summary+diffCheck(t, w.gh).Output.Text, "Security changes"), "the check run carries the table too")
		w.onPush()

		// Not approved: refused, naming the row; nothing deployed.
		w.stub(gateDiff(t, fixture))
		refusedRes := w.run(deployInputs("require-approval", "broadening"))
		assert.Equal(t, refusedRes.code, 1, refusedRes.stdout)
		assert.Equal(t, refusedRes.outputs["failure-reason"], "broadening-refused")
		assert.Equal(t, refusedRes.outputs["deployed"], "false")
		assert.Assert(t, is.Contains(refusedRes.stdout, "${SgD4954771} ingress tcp:22 from 0.0.0.0/0 in SgD4954771 (AWS::EC2::SecurityGroup) in StackA"))
		w.mergeLater() // approved after the review, then merged
		return w
	}

	t.Run("approved by the label another user added before the merge", func(t *testing.T) {
		w := reviewed(t)
		w.gh.LabelNow(owner, repo, deployPR, "security-approved", "carol")
		res := approved(t, w)
		assert.Assert(t, is.Contains(res.summary, `approved with the label "security-approved" by carol`))
	})
	t.Run("approved by a review of the reviewed head by another user", func(t *testing.T) {
		w := reviewed(t)
		w.gh.ReviewPullRequest(owner, repo, deployPR, githubtest.Review{Login: "alice", State: "APPROVED", CommitID: reviewedSHA})
		res := approved(t, w)
		assert.Assert(t, is.Contains(res.summary, "Approved by alice (reviews of 8888888)"))
	})
	t.Run("the author's label, a late label and a review of another commit approve nothing", func(t *testing.T) {
		w := reviewed(t)
		w.gh.LabelNow(owner, repo, deployPR, "security-approved", githubtest.DefaultAuthor)
		w.gh.AddLabelEvent(owner, repo, deployPR, "security-approved", "carol", mergedLater.Add(time.Hour)) // after the merge
		w.gh.ReviewPullRequest(owner, repo, deployPR, githubtest.Review{Login: "alice", State: "APPROVED", CommitID: "7777777777777777777777777777777777777777"})
		w.stub(gateDiff(t, fixture))
		res := w.run(deployInputs("require-approval", "broadening"))
		assert.Equal(t, res.outputs["failure-reason"], "broadening-refused")
		for _, why := range []string{"added by the pull request's author", "added by carol after the merge", "alice approved 7777777, not the reviewed head 8888888"} {
			assert.Assert(t, is.Contains(res.summary, why))
		}
	})
}

// required-approvals counts APPROVED reviews of the reviewed head; with
// none required, the report still says whether anyone approved.
func TestRequiredApprovals(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.writers("bob")
	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.review(reviewedSHA, diffInputs())

	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	res := w.run(deployInputs("required-approvals", "1"))
	assert.Equal(t, res.outputs["failure-reason"], "approvals-missing", res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "required-approvals is 1, but pull request #8 has 0 approving reviews"))

	w.mergeLater()
	w.gh.ReviewPullRequest(owner, repo, deployPR, githubtest.Review{Login: "bob", State: "APPROVED", CommitID: reviewedSHA})
	w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)}, resultInvocations(t, "events-StackA-run.json")...)...)
	res = w.run(deployInputs("required-approvals", "1"))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.summary, "Approved by bob"))
}

func TestNoApprovalIsAWarning(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)},
		resultInvocations(t, "events-StackA-run.json")...)...)
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::no approval on the reviewed head 8888888 of pull request #8"))
}

// #44 class 3: a security row the action cannot evaluate (a rule whose
// CidrIp becomes Fn::GetAtt of a new SSM parameter, which may hold
// 0.0.0.0/0) counts as broadening: the row says why, broadening is true,
// and require-approval: broadening refuses it until someone who may
// approve approves it after the review; then it deploys.
func TestUnresolvedSecurityRowNeedsApproval(t *testing.T) {
	const fixture = "testdata/deploy/diff-unresolved.json"
	w := newDeployWorkspace(t, reviewedSHA)
	w.writers("alice")
	copyDir(t, "testdata/security/unresolved", filepath.Join(w.dir, "cdk.out"))
	w.stub(gateDiff(t, fixture))
	w.onPullRequest(reviewedSHA)
	res := w.run(diffInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["broadening"], "true")
	body := prComment(t, w.gh).Body
	assert.Assert(t, is.Contains(body, "❓ **unresolved** (counts as broadening: it holds a value known only at the deploy, so it cannot be evaluated)"))
	assert.Assert(t, is.Contains(body, "1 broadening** of 2 security changes"))

	w.onPush()
	w.stub(gateDiff(t, fixture))
	refusedRes := w.run(deployInputs("require-approval", "broadening"))
	assert.Equal(t, refusedRes.outputs["failure-reason"], "broadening-refused", refusedRes.stdout)
	assert.Equal(t, refusedRes.outputs["deployed"], "false")
	assert.Assert(t, is.Contains(refusedRes.stdout, "ingress tcp:22 from ${OpenCidrParam5A1B2C3D.Value}"))

	// The positive control: approved after the review, before the merge.
	w.mergeLater()
	w.gh.ReviewPullRequest(owner, repo, deployPR, githubtest.Review{Login: "alice", State: "APPROVED"})
	w.stub(append([]cdkdtest.Invocation{gateDiff(t, fixture), deployInvocation(t, changedStacks(t, fixture)...)}, resultInvocationsOf(t, "events-StackA-run.json", changedStacks(t, fixture)...)...)...)
	res = w.run(deployInputs("require-approval", "broadening"))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Assert(t, is.Contains(res.summary, "Approved by alice (reviews of 8888888)"))
}
