package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// The gate's integrity against a reviewed diff tampered with before the
// deploy: each attack is refused with its reason, and nothing is deployed
// (the stub fails the test on any cdkd deploy it was not given).

// refused runs the deploy and checks it was refused for reason, saying why.
func refused(t *testing.T, w *workspace, reason string, says ...string) result {
	t.Helper()
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], reason)
	assert.Equal(t, res.outputs["deployed"], "false")
	for _, s := range says {
		assert.Assert(t, is.Contains(res.stdout, s))
	}
	assert.Assert(t, is.Contains(res.summary, "refused"))
	return res
}

// diffCheck is the diff's check run on the reviewed head.
func diffCheck(t *testing.T, gh *githubtest.Server) githubtest.CheckRun {
	t.Helper()
	for _, cr := range gh.CheckRuns() {
		if cr.Name == "cdkd diff" {
			return cr
		}
	}
	t.Fatal("no cdkd diff check run")
	return githubtest.CheckRun{}
}

// The Markdown reviewers read is bound to the digest: an edit below the
// hidden lines, or the change-set line removed, is refused.
func TestDeployRefusesEditedReport(t *testing.T) {
	edits := map[string]struct {
		edit func(c prcomment.Comment) prcomment.Comment
		says string
	}{
		"a word of the visible report": {func(c prcomment.Comment) prcomment.Comment {
			c.Report = strings.Replace(c.Report, "AWS::SQS::Queue", "AWS::SNS::Topic", 1)
			return c
		}, "the review comment was edited: its visible report is not the one the diff posted"},
		"a reassuring line added": {func(c prcomment.Comment) prcomment.Comment {
			c.Report += "\n> ✅ Security reviewed: nothing destructive.\n"
			return c
		}, "the review comment was edited"},
		"the change-set line deleted": {func(c prcomment.Comment) prcomment.Comment {
			c.ChangeSet = ""
			return c
		}, "the hidden change-set line under its header is missing"},
		"a deploy section planted before the merge": {func(c prcomment.Comment) prcomment.Comment {
			return c.WithDeploy("### cdkd deploy\n\n✅ Security reviewed: the delete above is a no-op.\n")
		}, "it carries a deploy section that no deploy of 9999999 wrote"},
		"the change-set line garbled": {func(c prcomment.Comment) prcomment.Comment {
			c.ChangeSet = strings.Replace(c.ChangeSet, "H4sI", "H4sJ", 1)
			return c
		}, "the review comment was edited: read the reviewed change set"},
	}
	for name, tc := range edits {
		t.Run(name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json")) // the review; the deploy refuses before its diff
			w.review(reviewedSHA, diffInputs())
			ours := prComment(t, w.gh)
			c, ok := prcomment.Parse(ours.Body)
			assert.Assert(t, ok)
			assert.Assert(t, c.ChangeSet != "" && c.Report != "")
			w.gh.EditComment(owner, repo, ours.ID, tc.edit(c).String())

			refused(t, w, "no-reviewed-diff", "::error::Deploy refused: Review cannot be trusted: The diff comment on pull request #8 was altered after the diff wrote it", tc.says)
			stub.AssertAllUsed(t)
		})
	}

	// The deploy's own section is a part the comparison knows: a second
	// deploy of a reviewed comment that holds the first one's outcome goes.
	t.Run("the deploy section is not an edit", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)},
			resultInvocations(t, "events-StackA-run.json")...)...)
		w.review(reviewedSHA, diffInputs())
		assert.Equal(t, w.run(deployInputs()).code, 0)
		w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)},
			resultInvocations(t, "events-StackA-run.json")...)...)
		again := w.run(deployInputs())
		assert.Equal(t, again.code, 0, again.stdout)
		assert.Equal(t, again.outputs["deployed"], "true")
	})
}

// Every workflow using GITHUB_TOKEN posts as github-actions[bot]: a newer
// comment by that login carrying our hidden lines over another visible body
// is not the review. The diff's check run names the comment it vouches for.
func TestDeployUsesTheCommentTheCheckRunNames(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the review
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the gate
		deployInvocation(t),
	}, resultInvocations(t, "events-StackA-run.json")...)...)
	w.review(reviewedSHA, diffInputs())
	ours := prComment(t, w.gh)
	rec, ok := gate.ParseDiffRecord(diffCheck(t, w.gh).ExternalID)
	assert.Assert(t, ok)
	assert.Equal(t, rec.CommentID, ours.ID, "the check run names the comment")

	// Another workflow copies our hidden lines over its own report.
	c, _ := prcomment.Parse(ours.Body)
	c.Report = "### cdkd diff\n\n✅ **No changes.**\n"
	copied := w.gh.SeedComments(owner, repo, deployPR, githubtest.DefaultLogin, c.String())[0]

	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Assert(t, is.Contains(res.stdout, "::warning::ignored comment "+copied.HTMLURL+": it carries cdkd-action's diff header, but the diff check run"))
	assert.Assert(t, is.Contains(res.stdout, "vouches for "+ours.HTMLURL))
	assert.Assert(t, is.Contains(res.summary, "reviewed at `8888888`"))
	assert.Equal(t, res.outputs["comment-url"], ours.HTMLURL, "the outcome goes to the reviewed comment")

	t.Run("the named comment deleted", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.review(reviewedSHA, diffInputs())
		ours := prComment(t, w.gh)
		c, _ := prcomment.Parse(ours.Body)
		w.gh.SeedComments(owner, repo, deployPR, githubtest.DefaultLogin, c.String())
		w.gh.DeleteComment(owner, repo, ours.ID)
		refused(t, w, "no-reviewed-diff", "vouches for comment", "which is no longer on the pull request")
		stub.AssertAllUsed(t)
	})
}

// Racing diff runs (hardening, item 8) leave one comment: the lowest ID,
// holding the report for the current head, and the check run names it.
func TestDiffConvergesOnOneComment(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.onPullRequest(reviewedSHA)
	// Two comments of ours left by racing runs for an older head.
	stale := prcomment.Comment{Header: marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: laterSHA, Digest: "v1:00"}, Report: "### cdkd diff\n\nold\n"}.String()
	left := w.gh.SeedComments(owner, repo, deployPR, githubtest.DefaultLogin, stale, stale)
	res := w.run(diffInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	c := prComment(t, w.gh) // exactly one of ours
	assert.Equal(t, c.ID, left[0].ID, "the lowest ID survives")
	h, ok := marker.Parse(c.Body)
	assert.Assert(t, ok)
	assert.Equal(t, h.SHA, reviewedSHA, "holding the report for the current head")
	rec, ok := gate.ParseDiffRecord(diffCheck(t, w.gh).ExternalID)
	assert.Assert(t, ok)
	assert.Equal(t, rec.CommentID, c.ID, "the check run names the survivor")
	assert.Equal(t, rec.ReportHash, prcomment.ReportHash(mustParse(t, c.Body).Report))
}

func mustParse(t *testing.T, body string) prcomment.Comment {
	t.Helper()
	c, ok := prcomment.Parse(body)
	assert.Assert(t, ok)
	return c
}

// Only check runs of the trusted app vouch for a review, whatever the
// identity the deploy reads comments as.
func TestDeployTrustsOnlyTheTrustedApp(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the review
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the gate
	)
	w.review(reviewedSHA, diffInputs())
	in := deployInputs("trusted-app", "my-deployer")
	res := w.run(in)
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
	assert.Equal(t, res.outputs["deployed"], "false")
	assert.Assert(t, is.Contains(res.stdout, "::warning::ignored check run "+diffCheck(t, w.gh).HTMLURL))
	assert.Assert(t, is.Contains(res.stdout, "created by the app github-actions, not my-deployer (input trusted-app)"))
	assert.Assert(t, is.Contains(res.stdout, "No diff check run on 8888888 records the review of pull request #8"))

	bad := w.run(deployInputs("trusted-app", "github-actions[bot]"))
	assert.Equal(t, bad.code, 2, bad.stdout)
	assert.Assert(t, is.Contains(bad.stdout, "input trusted-app: expected the slug of the GitHub App"))
}

// StackB depends on StackA (the sample assembly's manifest). One rule on
// the pull request and in the gate: named stacks deploy with --exclusively,
// so a deploy touches exactly the diffed stacks, and a deploy whose stacks
// match more than the review covered is refused, naming the stack.
func TestDeployTouchesOnlyReviewedStacks(t *testing.T) {
	asm := abs(t, "../../testdata/cdkd-samples/assembly-v1")
	var both []map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, "testdata/deploy/diff-safe.json")), &both))
	onlyB := filepath.Join(t.TempDir(), "diff-StackB.json")
	b, err := json.Marshal(both[1:])
	assert.NilError(t, err)
	assert.Equal(t, both[1]["stack"], "StackB")
	writeFile(t, onlyB, string(b))
	diffOf := func(file string, stacks ...string) cdkdtest.Invocation {
		args := append(append([]string{"diff"}, stacks...), "--json", "--recursive", "--app", asm)
		return cdkdtest.Invocation{Args: args, Env: map[string]string{"CDKD_NO_LIVE": "1"}, StdoutFile: file}
	}
	inputs := func(stacks string, extra ...string) map[string]string {
		in := map[string]string{"stacks": stacks, "app": asm, "mask-values": maskValues}
		for i := 0; i+1 < len(extra); i += 2 {
			in[extra[i]] = extra[i+1]
		}
		return in
	}
	const scope = "not deployed: StackA (a dependency of StackB)"

	t.Run("a wildcard that now covers the dependency is refused", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(diffOf(onlyB, "StackB"), diffOf(abs(t, "testdata/deploy/diff-safe.json"), "Stack*"))
		w.review(reviewedSHA, inputs("StackB"))
		assert.Assert(t, is.Contains(prComment(t, w.gh).Body, scope), "the review says what a deploy touches")
		res := w.run(inputs("Stack*", "command", "deploy"))
		assert.Equal(t, res.code, 1, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["failure-reason"], "diff-changed")
		assert.Equal(t, res.outputs["deployed"], "false")
		assert.Assert(t, is.Contains(res.stdout, "the deploy would touch StackA, which the review did not cover"))
	})
	t.Run("the reviewed stack alone is deployed", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(diffOf(onlyB, "StackB"), diffOf(onlyB, "StackB"),
			cdkdtest.Invocation{Args: []string{"deploy", "StackB", "--exclusively", "-y", "--app", asm}, Env: map[string]string{"CDKD_NO_LIVE": "1"},
				Stdout: stackBOnly(t)},
			fileInvocation(t, "events-StackB.json", "events", "StackB", "--json"),
			fileInvocation(t, "state-StackB.json", "state", "show", "StackB", "--json"))
		w.review(reviewedSHA, inputs("StackB"))
		res := w.run(inputs("StackB", "command", "deploy"))
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["deployed"], "true")
		assert.Assert(t, is.Contains(res.summary, scope))
	})
}

// stackBOnly is what cdkd deploy StackB --exclusively prints: StackB's part
// of the sample deploy.
func stackBOnly(t *testing.T) string {
	t.Helper()
	out := readFile(t, "testdata/deploy/deploy.stdout")
	i := strings.Index(out, "Deploying stack: StackB")
	assert.Assert(t, i > 0)
	return "Synthesizing CDK app...\n\n" + out[i:]
}

// An approval belongs to the review: the destructive-approval label counts
// only if it was on the pull request when it merged.
func TestDeployApprovalLabelMustPrecedeTheMerge(t *testing.T) {
	const v2 = "../../testdata/fixtures/diff-v2.json" // deletes ExtraTopic, replaces Queue
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(gateDiff(t, v2), gateDiff(t, v2))
	w.review(reviewedSHA, diffInputs())
	// After the merge, someone with triage rights labels it and re-runs.
	w.gh.LabelPullRequest(owner, repo, deployPR, "cdkd:allow-destructive", "mallory")
	res := refused(t, w, "destructive-refused",
		`Not counted: the label "cdkd:allow-destructive" was added by mallory after the merge.`)
	stub.AssertAllUsed(t)
	assert.Assert(t, !strings.Contains(res.summary, "✅ allowed by the pull request label"))
}

// Several merged pull requests hold the pushed commit: whose review and
// labels count is ambiguous, so the gate refuses instead of taking the first.
func TestDeployRefusesAmbiguousPullRequests(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.gh.AddPullRequest(githubtest.PR{Number: 12, HeadSHA: "1212121212121212121212121212121212121212", BaseRef: "main",
		Merged: true, MergeCommitSHA: mergeSHA, Labels: []string{"cdkd:allow-destructive"}})
	stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.review(reviewedSHA, diffInputs())
	refused(t, w, "no-reviewed-diff", "Commit 9999999 belongs to several merged pull requests (#8, #12)")
	stub.AssertAllUsed(t)
}

// Two diff runs for one pull request and label started together: however
// their requests interleave, one comment of ours is left, and every diff
// check run names it.
func TestConcurrentDiffRunsLeaveOneComment(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.onPullRequest(reviewedSHA)
	for _, res := range w.runTogether(diffInputs(), diffInputs()) {
		assert.Equal(t, res.code, 0, res.stdout)
	}
	c := prComment(t, w.gh)
	for _, cr := range reportRuns(w.gh) {
		rec, ok := gate.ParseDiffRecord(cr.ExternalID)
		assert.Assert(t, ok, cr.ExternalID)
		assert.Equal(t, rec.CommentID, c.ID, "each check run names the surviving comment")
	}
}

// #44 class 4: the documented remedy for an edited review, re-running the
// pull request's diff, writes the comment again (its header alone does
// not make it unchanged), and the new check run records the report the
// action wrote, never the edited one read back; the deploy then goes.
func TestDiffRerunRepairsAnEditedReview(t *testing.T) {
	const fixture = "testdata/deploy/diff-broadening.json"
	w := newDeployWorkspace(t, reviewedSHA)
	copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, fixture), gateDiff(t, fixture), gateDiff(t, fixture), deployInvocation(t)},
		resultInvocations(t, "events-StackA-run.json")...)...)
	w.review(reviewedSHA, diffInputs())
	ours := prComment(t, w.gh)
	posted, ok := prcomment.Parse(ours.Body)
	assert.Assert(t, ok)
	assert.Assert(t, is.Contains(posted.Report, "0.0.0.0/0"))
	edited := posted
	edited.Report = strings.ReplaceAll(posted.Report, "0.0.0.0/0", "10.0.0.0/8")
	w.gh.EditComment(owner, repo, ours.ID, edited.String())
	refused(t, w, "no-reviewed-diff", "The diff comment on pull request #8 was altered after the diff wrote it")

	w.review(reviewedSHA, diffInputs()) // the remedy: the diff again, at the same head
	again, ok := prcomment.Parse(prComment(t, w.gh).Body)
	assert.Assert(t, ok)
	assert.Equal(t, again.Report, posted.Report, "the comment shows what the diff writes again")
	runs := w.gh.CheckRuns()
	var newest githubtest.CheckRun
	for _, cr := range runs {
		if cr.Name == "cdkd diff" && cr.ID > newest.ID {
			newest = cr
		}
	}
	rec, ok := gate.ParseDiffRecord(newest.ExternalID)
	assert.Assert(t, ok, newest.ExternalID)
	assert.Equal(t, rec.ReportHash, prcomment.ReportHash(posted.Report), "the record hashes the report the action wrote")
	assert.Assert(t, rec.ReportHash != prcomment.ReportHash(edited.Report))

	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["deployed"], "true")
	stub.AssertAllUsed(t)
}

// The comment edited between the diff's write and its read-back: the
// check run still records the report the action wrote, so the record no
// one can edit never vouches for the edit, and the deploy refuses it.
func TestDiffRecordHashesWhatItWrote(t *testing.T) {
	const fixture = "testdata/deploy/diff-broadening.json"
	w := newDeployWorkspace(t, reviewedSHA)
	copyDir(t, "testdata/security/assembly", filepath.Join(w.dir, "cdk.out"))
	w.stub(gateDiff(t, fixture))
	// The run lists the comments to find its own, again once it wrote it,
	// and a third time to read back what it records: hold that one.
	hold, lists := githubtest.NewHold(), 0
	w.gh.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpListIssueComments, Hold: hold, Match: func(githubtest.Request) bool {
		lists++
		return lists == 3
	}})
	w.onPullRequest(reviewedSHA)
	done := make(chan result, 1)
	go func() { done <- w.run(diffInputs()) }()
	<-hold.Reached()
	ours := prComment(t, w.gh)
	posted, ok := prcomment.Parse(ours.Body)
	assert.Assert(t, ok)
	edited := posted
	edited.Report = strings.ReplaceAll(posted.Report, "0.0.0.0/0", "10.0.0.0/8")
	w.gh.EditComment(owner, repo, ours.ID, edited.String())
	hold.Release()
	res := <-done
	assert.Equal(t, res.code, 0, res.stdout)

	rec, ok := gate.ParseDiffRecord(diffCheck(t, w.gh).ExternalID)
	assert.Assert(t, ok)
	assert.Equal(t, rec.ReportHash, prcomment.ReportHash(posted.Report), "the record hashes the report the action wrote")
	w.onPush()
	refused(t, w, "no-reviewed-diff", "its visible report is not the one the diff posted")
}
