package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// pictureResultInvocations are what the deploy of testdata/picture reads
// after deploying, beside resultInvocations: its output is the deploy
// fixtures' (of other stacks), since what a test asks of that deploy is
// that the gate accepts the review.
func pictureResultInvocations(t *testing.T) []cdkdtest.Invocation {
	t.Helper()
	return []cdkdtest.Invocation{
		fileInvocation(t, "events-StackA.json", "events", "Storage", "--json"),
		fileInvocation(t, "events-StackA-run.json", "events", "Storage", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
		fileInvocation(t, "state-StackA.json", "state", "show", "Storage", "--json"),
		fileInvocation(t, "events-StackB.json", "events", "Api", "--json"), // deployed with Storage: it imports its export
		fileInvocation(t, "state-StackB.json", "state", "show", "Api", "--json"),
	}
}

// pictureBucketResultInvocations are pictureResultInvocations when the
// state bucket holds Storage's state (pictureBucket): the deploy reads it
// from there (cdkd 0.284.40's layout), with no cdkd process; Api's is not
// there, so cdkd reads it.
func pictureBucketResultInvocations(t *testing.T) []cdkdtest.Invocation {
	t.Helper()
	return slices.DeleteFunc(pictureResultInvocations(t), func(inv cdkdtest.Invocation) bool {
		return slices.Equal(inv.Args, []string{"state", "show", "Storage", "--json"})
	})
}

// pictureBucket makes a state bucket holding the state record of Storage,
// the stack with a deletion (what referenced the deleted queue where it was
// deployed), and points the workspace at it: the env of its runs.
func pictureBucket(t *testing.T, w *workspace) []string {
	t.Helper()
	aws := startAWS(t)
	key := w.vars["INPUT_FINGERPRINT-KEY"]
	w.useAWS(aws)
	w.vars["INPUT_FINGERPRINT-KEY"] = key
	state, err := os.ReadFile("testdata/picture/state.json")
	assert.NilError(t, err)
	bucket := "picture-" + unique(t)
	aws.createBucket(t, bucket, map[string]string{"cdkd/Storage/us-east-1/state.json": string(state)})
	return []string{"CDKD_STATE_BUCKET=" + bucket}
}

// useAssembly puts the cloud assembly asm where the diff and the deploy
// read it (the workspace's cdk.out).
func useAssembly(t *testing.T, w *workspace, asm string) {
	t.Helper()
	out := filepath.Join(w.dir, "cdk.out")
	assert.NilError(t, os.RemoveAll(out))
	copyDir(t, asm, out)
}

// A replacement and a deletion, with resources that reference them in their
// stack (the deleted queue's, from cdkd's state) and in another (through
// an export), get the picture of what they touch in the PR comment; the
// check run and the job summary point to it. A hostile logical ID reads as
// text, and one holding a secret is redacted inside its label. The deploy
// then renders the review again from what it records (the picture from the
// header) and deploys.
func TestPictureInTheReview(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	useAssembly(t, w, "testdata/picture/assembly")
	env := pictureBucket(t, w)
	// Api is deployed with Storage: it imports Storage's export.
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/picture/diff.json"), gateDiff(t, "testdata/picture/diff.json"),
		deployInvocation(t, "Api", "Storage")}, pictureBucketResultInvocations(t)...)...)

	w.onPullRequest(reviewedSHA)
	res := w.run(diffInputs(), env...)
	assert.Equal(t, res.code, 0, res.stdout)
	comment := prComment(t, w.gh).Body
	h, ok := marker.Parse(comment)
	assert.Assert(t, ok)
	assert.Assert(t, len(h.Picture) > 0, "the header records the picture")
	_, report, _ := strings.Cut(comment, "\n")
	_, report, _ = strings.Cut(report, "\n") // the change-set line
	golden.Assert(t, regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`).ReplaceAllString(report, "http://github.test/"), "picture/comment.golden")
	assert.Assert(t, is.Contains(report, "```mermaid"))
	assert.Assert(t, !strings.Contains(comment, "s3cr3t-pw-from-sm"))
	assert.Assert(t, is.Contains(report, `n4["Leaks***<br/>AWS#58;#58;SNS#58;#58;Topic"]`), "a secret in a name is redacted inside its label")
	assert.Assert(t, is.Contains(report, `n3["Evil#34;#93;#58;#58;#58;x click n0 call alert#40;#41; #60;script#62;#37;#37;#123;init#58; #123;#125;#125;#37;#37;<br/>AWS#58;#58;SNS#58;#58;Topic"]`))

	check := diffCheck(t, w.gh)
	for where, text := range map[string]string{"summary": res.summary, "check run": check.Output.Summary + check.Output.Text} {
		assert.Assert(t, !strings.Contains(text, "```mermaid"), where)
		assert.Assert(t, is.Contains(text, fmt.Sprintf("🗺️ The picture of what the changes touch is in the PR comment on [#%d](%s/%s/pull/%d).",
			deployPR, w.vars["GITHUB_SERVER_URL"], w.vars["GITHUB_REPOSITORY"], deployPR)), where)
	}
	n := blasttest.Check(t, map[string]string{"comment": comment, "summary": res.summary, "check run": check.Output.Summary + check.Output.Text},
		map[string]blasttest.Expect{"comment#0": {Vertices: 8 + 4, Texts: []string{
			`Evil"]:::x click n0 call alert() <script>%%{init: {}}%%`, "Leaks***", "stack Api", "Handler886CB40B", "QueuePolicy3A4B5C6D"}}})
	assert.Equal(t, n, 1, "one stack pictured, in the comment only")

	w.onPush()
	res = w.run(deployInputs("allow-destructive", "true"), env...)
	assert.Equal(t, res.code, 0, "the gate renders the review again, picture and all: %s", lastLines(res.stdout, 30))
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["digest"], h.Digest)
}

// The picture is bound like the rest of the visible report: a header whose
// recorded picture was taken out (or changed) no longer renders to what
// reviewers read, and the deploy refuses the review as edited.
func TestPictureRecordEditedIsRefused(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	useAssembly(t, w, "testdata/picture/assembly")
	// Refused from the comment alone, before the deploy's diff runs.
	env := pictureBucket(t, w)
	stub := w.stub(gateDiff(t, "testdata/picture/diff.json"))
	w.review(reviewedSHA, diffInputs(), env...)
	c := prComment(t, w.gh)
	pc, ok := prcomment.Parse(c.Body)
	assert.Assert(t, ok)
	assert.Assert(t, len(pc.Header.Picture) > 0)
	pc.Header.Picture = nil
	w.gh.EditComment(owner, repo, c.ID, pc.String())
	res := w.run(deployInputs("allow-destructive", "true"), env...)
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
	assert.Assert(t, is.Contains(res.summary, "its visible report differs from the reviewed change set"))
}
