package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// The gate's rules as a team meets them, from review to deploy: what is
// created is bound by its properties, and a deploy makes only reviewed
// changes, some of which may be in place already.

// diffPart writes the stacks of diff-safe.json that keep names (and, for
// a stack, only the changes that keep) into a file of the test's own.
func diffPart(t *testing.T, dir, name string, keep func(stack, logicalID string) bool) string {
	t.Helper()
	return diffPartOf(t, "testdata/deploy/diff-safe.json", dir, name, keep)
}

// diffPartOf is diffPart of another fixture.
func diffPartOf(t *testing.T, fixture, dir, name string, keep func(stack, logicalID string) bool) string {
	t.Helper()
	var stacks []map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, fixture)), &stacks))
	for _, s := range stacks {
		var kept []any
		for _, c := range s["changes"].([]any) {
			if keep(s["stack"].(string), c.(map[string]any)["logicalId"].(string)) {
				kept = append(kept, c)
			}
		}
		if kept == nil {
			kept = []any{}
			s["outputChanges"] = []any{}
		}
		s["changes"] = kept
	}
	b, err := json.Marshal(stacks)
	assert.NilError(t, err)
	path := filepath.Join(dir, name)
	writeFile(t, path, string(b))
	return path
}

// Pull request B, updated after A merged but before A deployed, was
// reviewed with A's changes and its own. A deploys; then B's deploy makes
// only B's changes, which its review holds, and says A's are in place.
func TestDeployTwoPullRequestsBackToBack(t *testing.T) {
	const (
		headB  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		mergeB = "cccccccccccccccccccccccccccccccccccccccc"
	)
	w := newDeployWorkspace(t, reviewedSHA) // #8 is A
	w.gh.AddPullRequest(githubtest.PR{Number: 9, HeadSHA: headB, HeadRef: "b", BaseRef: "main", Merged: true, MergeCommitSHA: mergeB})
	onlyA := diffPart(t, w.dir, "a.json", func(stack, _ string) bool { return stack == "StackA" })
	onlyB := diffPart(t, w.dir, "b.json", func(stack, _ string) bool { return stack == "StackB" })
	both := abs(t, "testdata/deploy/diff-safe.json")
	stub := w.stub(slices.Concat([]cdkdtest.Invocation{
		gateDiff(t, onlyA), // A's review
		gateDiff(t, both),  // B's review, on a base holding A
		gateDiff(t, onlyA), // A's deploy
		deployInvocation(t, changedStacks(t, onlyA)...),
	}, resultInvocationsOf(t, "events-StackA-run.json", changedStacks(t, onlyA)...), []cdkdtest.Invocation{
		gateDiff(t, onlyB), // B's deploy: A's changes are in place
		deployInvocation(t, changedStacks(t, onlyB)...),
	}, resultInvocationsOf(t, "events-StackA-run.json", changedStacks(t, onlyB)...))...)
	w.reviewPR(deployPR, "main", reviewedSHA, diffInputs())
	w.reviewPR(9, "main", headB, diffInputs())

	a := w.run(deployInputs())
	assert.Equal(t, a.code, 0, a.stdout)
	assert.Equal(t, a.outputs["deployed"], "true")

	w.vars["GITHUB_SHA"] = mergeB
	b := w.run(deployInputs())
	assert.Equal(t, b.code, 0, b.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, b.outputs["deployed"], "true")
	assert.Equal(t, b.outputs["failure-reason"], "")
	assert.Assert(t, is.Contains(b.summary, "Every change is one reviewed in pull request"))
	assert.Assert(t, is.Contains(b.summary, "already in place, so not deployed again"))
	assert.Assert(t, is.Contains(b.summary, "update TopicBFC7AF6E.DisplayName in StackA"))

	t.Run("a change whose old value moved is refused", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		moved := strings.Replace(readFile(t, "testdata/deploy/diff-safe.json"), `"ImportedBucketParam03535B42"`, `"ImportedBucketParam03535B42"`, 1)
		var stacks []map[string]any
		assert.NilError(t, json.Unmarshal([]byte(moved), &stacks))
		stacks[0]["changes"].([]any)[0].(map[string]any)["propertyChanges"].([]any)[0].(map[string]any)["oldValue"] = "someone-else"
		raw, err := json.Marshal(stacks)
		assert.NilError(t, err)
		path := filepath.Join(w.dir, "moved.json")
		writeFile(t, path, string(raw))
		stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, path))
		w.review(reviewedSHA, diffInputs())
		res := refused(t, w, "diff-changed", "starts from another value than pull request #8 reviewed")
		_ = res
		stub.AssertAllUsed(t)
	})
}

// What a resource is created with is part of the review: cdkd's diff names
// the creation only, so the gate reads its properties from the assembly it
// compared. Another value there (a synth at deploy time, a push after
// approval) is another change set; no assembly binds nothing, and refuses.
func TestDeployBindsCreatedResources(t *testing.T) {
	t.Run("reviewed with its properties", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.review(reviewedSHA, diffInputs())
		body := prComment(t, w.gh).Body
		assert.Assert(t, is.Contains(body, "<details><summary>2 properties it is created with</summary>"))
		assert.Assert(t, is.Contains(body, "- `QueueName`: `\"fixture-new-queue\"`"))
	})
	t.Run("another value at deploy time", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.review(reviewedSHA, diffInputs())
		tpl := filepath.Join(w.dir, "cdk.out", "StackA.template.json")
		writeFile(t, tpl, strings.Replace(readFile(t, tpl), "fixture-new-queue", "attacker-queue", 1))
		refused(t, w, "diff-changed", "create NewQueue1C62264E (AWS::SQS::Queue) in StackA differs from what pull request #8 reviewed")
		stub.AssertAllUsed(t)
	})
	t.Run("no assembly", func(t *testing.T) {
		w := newWorkspace(t)
		w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: reviewedSHA, HeadRef: "rename-queue", BaseRef: "main", Merged: true, MergeCommitSHA: mergeSHA})
		stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"), gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.review(reviewedSHA, diffInputs())
		assert.Assert(t, is.Contains(prComment(t, w.gh).Body, "its properties are not part of this review"))
		refused(t, w, "diff-unverifiable", "creates StackA/NewQueue1C62264E, whose properties are not bound to the review")
		stub.AssertAllUsed(t)
	})
}

// A merge queue lands a batch of three pull requests in one push: each was
// reviewed with its own change, and the deploy of the push makes their
// union. The push's before..after names the commits, each commit its pull
// request.
func TestDeployABatchOfThree(t *testing.T) {
	const (
		before = "1010101010101010101010101010101010101010"
		head9  = "2929292929292929292929292929292929292929"
		head10 = "3030303030303030303030303030303030303030"
		merge8 = "4848484848484848484848484848484848484848"
		merge9 = "4949494949494949494949494949494949494949"
	)
	w := newWorkspace(t)
	w.createdFromAssembly()
	w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: reviewedSHA, HeadRef: "a", BaseRef: "main", Merged: true, MergeCommitSHA: merge8})
	w.gh.AddPullRequest(githubtest.PR{Number: 9, HeadSHA: head9, HeadRef: "b", BaseRef: "main", Merged: true, MergeCommitSHA: merge9})
	w.gh.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: head10, HeadRef: "c", BaseRef: "main", Merged: true, MergeCommitSHA: mergeSHA})
	w.gh.SetCommits(owner, repo, before, mergeSHA, merge8, merge9, mergeSHA)
	topic := diffPart(t, w.dir, "topic.json", func(_, id string) bool { return id == "TopicBFC7AF6E" })
	queue := diffPart(t, w.dir, "queue.json", func(_, id string) bool { return id == "NewQueue1C62264E" })
	param := diffPart(t, w.dir, "param.json", func(stack, _ string) bool { return stack == "StackB" })
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, topic), gateDiff(t, queue), gateDiff(t, param),
		gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)}, resultInvocations(t, "events-StackA-run.json")...)...)
	w.reviewPR(deployPR, "main", reviewedSHA, diffInputs())
	w.reviewPR(9, "main", head9, diffInputs())
	w.reviewPR(10, "main", head10, diffInputs())
	event := filepath.Join(w.dir, "push-batch.json")
	writeFile(t, event, `{"ref":"refs/heads/main","before":"`+before+`","after":"`+mergeSHA+`"}`)
	w.vars["GITHUB_EVENT_PATH"] = event

	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Assert(t, is.Contains(res.summary, "Every change is one reviewed in pull requests"))

	t.Run("without the push's before, the last pull request's review alone counts", func(t *testing.T) {
		w2 := newWorkspace(t)
		w2.createdFromAssembly()
		w2.gh.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: head10, HeadRef: "c", BaseRef: "main", Merged: true, MergeCommitSHA: mergeSHA})
		stub := w2.stub(gateDiff(t, diffPart(t, w2.dir, "param.json", func(stack, _ string) bool { return stack == "StackB" })),
			gateDiff(t, "testdata/deploy/diff-safe.json"))
		w2.reviewPR(10, "main", head10, diffInputs())
		refused(t, w2, "diff-changed", "was in no review")
		stub.AssertAllUsed(t)
	})
}

// bigDiff writes a change set too large for the comment's change-set line
// (its fingerprints are stored instead), and an assembly placing every
// value, so they show: n topics renamed to values derived from seed.
func bigDiff(t *testing.T, w *workspace, name, seed string, n int) string {
	t.Helper()
	var changes, resources []string
	for i := range n {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s-%d", seed, i)))
		changes = append(changes, fmt.Sprintf(`{"logicalId":"Topic%04d","changeType":"UPDATE","resourceType":"AWS::SNS::Topic","propertyChanges":[{"path":"DisplayName","oldValue":"old-%d","newValue":"%x","requiresReplacement":false}]}`, i, i, sum))
		resources = append(resources, fmt.Sprintf(`"Topic%04d":{"Type":"AWS::SNS::Topic","Properties":{"DisplayName":"x"}}`, i))
	}
	asm := filepath.Join(w.dir, "cdk.out")
	writeFile(t, filepath.Join(asm, "manifest.json"), `{"version":"55.0.0","artifacts":{"StackA":{"type":"aws:cloudformation:stack","environment":"aws://unknown-account/us-east-1","properties":{"templateFile":"StackA.template.json"}}}}`)
	writeFile(t, filepath.Join(asm, "StackA.template.json"), `{"Resources":{`+strings.Join(resources, ",")+`}}`)
	path := filepath.Join(w.dir, name)
	writeFile(t, path, `[{"stack":"StackA","region":"us-east-1","changes":[`+strings.Join(changes, ",")+`],"outputChanges":[]}]`)
	return path
}

// A workflow using GITHUB_TOKEN keeps change set X's visible report byte for
// byte, swaps the hidden lines to Y's, writes a github-actions check run
// vouching for that, and deploys Y: with only fingerprints stored, the
// report is rendered again from Y and differs.
func TestDeployRerendersAReportKeptOverAnotherDigest(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	x := bigDiff(t, w, "x.json", "x", 800)
	y := bigDiff(t, w, "y.json", "y", 800)
	stub := w.stub(gateDiff(t, x), gateDiff(t, y), gateDiff(t, y))
	w.review(reviewedSHA, diffInputs())
	reviewedX := prComment(t, w.gh)
	cx, _ := prcomment.Parse(reviewedX.Body)
	cs, err := prcomment.DecodeChangeSet(reviewedX.Body, cx.Header.Digest)
	assert.NilError(t, err)
	assert.Assert(t, cs.Diff == nil && len(cs.Fingerprints) == 800, "the change set line holds fingerprints only")
	w.review(reviewedSHA, diffInputs()) // the workflow computes Y's hidden lines
	cy, _ := prcomment.Parse(prComment(t, w.gh).Body)
	cy.Report = cx.Report // and keeps X's report
	cy.Header.Render = 0  // in the layout of a release that wrote v2 records
	w.gh.EditComment(owner, repo, reviewedX.ID, cy.String())
	api, err := github.NewClient(token, w.gh.APIURL())
	assert.NilError(t, err)
	_, err = api.CreateCheckRun(context.Background(), owner, repo, github.CheckRun{Name: "cdkd diff", HeadSHA: reviewedSHA, Status: "completed", Conclusion: "neutral",
		Title: "t", Summary: "s", ExternalID: gate.DiffRecordV2(cy.Header.Digest, reviewedX.ID, prcomment.ReportHash(cx.Report))})
	assert.NilError(t, err)

	refused(t, w, "no-reviewed-diff", "rendered again from the change set its digest covers")
	stub.AssertAllUsed(t)
}
