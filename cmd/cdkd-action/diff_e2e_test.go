package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
)

var sampleSecrets = []string{"hunter2-noecho-v1", "hunter2-noecho-v2", "s3cr3t-pw-from-sm", "securepw1"}

func diffInvocation(t *testing.T, stdoutFile string) cdkdtest.Invocation {
	return cdkdtest.Invocation{
		Args:       []string{"diff", "--all", "--json", "--recursive"},
		Env:        map[string]string{"CDKD_NO_LIVE": "1"},
		StdoutFile: abs(t, stdoutFile),
		StderrLines: []cdkdtest.Line{
			{Text: "Failed to resolve create-only properties for AWS::SQS::Queue via cloudformation:DescribeType"},
		},
	}
}

// The sticky comment lifecycle: the first run creates it, a run with another
// diff edits it in place, and a run with the same diff writes nothing.
func TestDiffStickyCommentLifecycle(t *testing.T) {
	w := newWorkspace(t)
	stub := w.stub(
		diffInvocation(t, "../../testdata/cdkd-samples/12-diff-v1-nochange-json.stdout"),
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
	)
	inputs := map[string]string{"all": "true"}

	first := w.run(inputs)
	assert.Equal(t, first.code, 0, first.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	assert.Assert(t, is.Contains(comments[0].Body, "No changes"))
	h, ok := marker.Parse(comments[0].Body)
	assert.Assert(t, ok, "the comment starts with our hidden header")
	assert.Equal(t, h.Kind, "diff")
	assert.Equal(t, h.SHA, headSHA)
	assert.Equal(t, h.Cdkd, "0.284.40")
	assert.Assert(t, strings.HasPrefix(h.Digest, "v3:"))
	assert.Equal(t, first.outputs["has-changes"], "false")
	assert.Equal(t, first.outputs["comment-url"], comments[0].HTMLURL)
	firstID := comments[0].ID

	second := w.run(inputs)
	assert.Equal(t, second.code, 0, second.stdout)
	comments = w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	assert.Equal(t, comments[0].ID, firstID, "edited in place, not reposted")
	assert.Assert(t, is.Contains(comments[0].Body, "QueueName"))
	assert.Equal(t, second.outputs["has-changes"], "true")
	assert.Equal(t, second.outputs["to-create"], "1")
	assert.Equal(t, second.outputs["to-update"], "3")
	assert.Equal(t, second.outputs["to-replace"], "1")
	assert.Equal(t, second.outputs["to-delete"], "1")
	assert.Equal(t, second.outputs["outputs-changed"], "2")
	h2, _ := marker.Parse(comments[0].Body)
	assert.Assert(t, h2.Digest != h.Digest, "a different change set has a different digest")

	// A new run (its own run link) with the same diff writes nothing.
	writes := commentWrites(w.gh)
	w.vars["GITHUB_RUN_ID"] = "4243"
	third := w.run(inputs)
	assert.Equal(t, third.code, 0, third.stdout)
	assert.Equal(t, commentWrites(w.gh), writes, "same diff: no comment write")
	stub.AssertAllUsed(t)

	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 3))
	assert.Equal(t, runs[0].Name, "cdkd diff")
	assert.Equal(t, runs[0].HeadSHA, headSHA)
	assert.Equal(t, runs[0].Conclusion, "success")
	assert.Equal(t, runs[1].Conclusion, "neutral")
	assert.Assert(t, is.Contains(second.summary, "QueueName"), "the job summary carries the full report")
}

// A busy pull request: our comment sits on the fourth page of comments.
func TestDiffFindsItsCommentAcrossPages(t *testing.T) {
	w := newWorkspace(t)
	w.stub(
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/cdkd-samples/12-diff-v1-nochange-json.stdout"),
	)
	var noise []string
	for i := 0; i < 330; i++ {
		noise = append(noise, fmt.Sprintf("comment %d", i))
	}
	w.gh.SeedComments(owner, repo, prNum, "octocat", noise...)
	first := w.run(map[string]string{"all": "true"})
	assert.Equal(t, first.code, 0, first.stdout)
	assert.Assert(t, is.Len(w.gh.Comments(owner, repo, prNum), 331))
	second := w.run(map[string]string{"all": "true"})
	assert.Equal(t, second.code, 0, second.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 331), "found on page 4 and edited, not duplicated")
	assert.Assert(t, is.Contains(comments[330].Body, "No changes"))
}

// Labels keep two diffs on one pull request apart.
func TestDiffLabelsHaveTheirOwnCommentAndCheck(t *testing.T) {
	w := newWorkspace(t)
	w.stub(
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/cdkd-samples/12-diff-v1-nochange-json.stdout"),
	)
	assert.Equal(t, w.run(map[string]string{"all": "true", "label": "prod"}).code, 0)
	assert.Equal(t, w.run(map[string]string{"all": "true", "label": "staging"}).code, 0)
	assert.Assert(t, is.Len(w.gh.Comments(owner, repo, prNum), 2))
	runs := reportRuns(w.gh)
	assert.Equal(t, runs[0].Name, "cdkd diff (prod)")
	assert.Equal(t, runs[1].Name, "cdkd diff (staging)")
}

func TestDiffFailOnChanges(t *testing.T) {
	w := newWorkspace(t)
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	res := w.run(map[string]string{"all": "true", "fail-on-changes": "true"})
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "changes")
	assert.Equal(t, w.gh.CheckRuns()[0].Conclusion, "failure")
}

// cdkd exits 1 with no JSON: that is an error with cdkd's reason, never
// "no changes", and it still reaches the summary, the check and the comment.
func TestDiffCdkdCrashIsAnError(t *testing.T) {
	w := newWorkspace(t)
	w.stub(cdkdtest.Invocation{
		Args:   []string{"diff", "--all", "--json", "--recursive"},
		Stderr: "Synthesizing CDK app...\nError: Region is missing\n",
		Exit:   1,
	})
	res := w.run(map[string]string{"all": "true"})
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "cdkd-failed")
	assert.Assert(t, is.Contains(res.summary, "Region is missing"))
	assert.Assert(t, !strings.Contains(res.summary, "No changes"))
	run := w.gh.CheckRuns()[0]
	assert.Equal(t, run.Conclusion, "failure")
	assert.Assert(t, is.Contains(run.Output.Summary, "Region is missing"))
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	h, _ := marker.Parse(comments[0].Body)
	assert.Equal(t, h.Digest, "", "a failed diff carries no digest a deploy could trust")
}

func TestDiffMissingCdkd(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"all": "true", "cdkd-path": filepath.Join(w.dir, "no-such-cdkd")})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Assert(t, is.Contains(res.summary, "cdkd not found"))
	assert.Assert(t, is.Contains(res.stdout, "::error::input cdkd-path: cdkd not found"))
	assert.Equal(t, w.gh.Writes(), 0, "nothing ran, nothing posted")
}

// Bad input: one sentence naming the input, the summary still written,
// nothing posted.
func TestDiffBadInput(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"comment": "sometimes"})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, `::error::input comment: expected update, recreate or off, got "sometimes"`))
	assert.Assert(t, is.Contains(res.summary, "input comment"))
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Equal(t, w.gh.Writes(), 0)
}

// An input error may quote an input; a secret in it is redacted even though
// the inputs never validated, and the token never shows.
func TestBadInputQuotingASecretIsRedacted(t *testing.T) {
	w := newWorkspace(t)
	secret := "no-equals-sign-t0ps3cret"
	res := w.run(map[string]string{"context": secret, "mask-values": secret})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+secret))
	assert.Assert(t, is.Contains(res.stdout, "::add-mask::"+token))
	for _, line := range strings.Split(res.stdout, "\n") {
		if !strings.HasPrefix(line, "::add-mask::") {
			assert.Assert(t, !strings.Contains(line, secret), "leaked in %q", line)
		}
	}
	assert.Assert(t, is.Contains(res.stdout, `::error::input context: expected one key=value per line, got "***"`))
	assert.Assert(t, !strings.Contains(res.summary, secret))
}

// A short secret that looks like hex must not garble the hidden header (a
// deploy would then refuse its own review), and is still redacted elsewhere.
func TestDiffHeaderSurvivesAHexLikeSecret(t *testing.T) {
	w := newWorkspace(t)
	w.chance = []string{"1111"} // the head SHA's digits; the body is checked below
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	res := w.run(map[string]string{"all": "true", "mask-values": "1111\nfixture-topic-v2"})
	assert.Equal(t, res.code, 0, res.stdout)
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	h, ok := marker.Parse(body)
	assert.Assert(t, ok)
	assert.Equal(t, h.SHA, headSHA)
	assert.Assert(t, strings.HasPrefix(h.Digest, "v3:"))
	_, rest, _ := strings.Cut(body, "\n")
	assert.Assert(t, !strings.Contains(rest, "fixture-topic-v2"), "the body is still redacted")
	assertHidden(t, []channel{{"the comment after its header", rest}}, "1111")
}

// A slow or re-run job for an older commit leaves the newer review alone.
func TestDiffForAnOlderCommitDoesNotOverwriteTheReview(t *testing.T) {
	w := newWorkspace(t)
	w.stub(
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/cdkd-samples/12-diff-v1-nochange-json.stdout"),
	)
	assert.Equal(t, w.run(map[string]string{"all": "true"}).code, 0)
	before := w.gh.Comments(owner, repo, prNum)[0].Body

	// The same job for an older head commit finishes late.
	older := strings.Replace(readFile(t, "testdata/pull_request.json"), headSHA, "2222222222222222222222222222222222222222", 1)
	writeFile(t, w.vars["GITHUB_EVENT_PATH"], older)
	res := w.run(map[string]string{"all": "true"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::pull request #7 has moved on to 1111111"))
	assert.Equal(t, w.gh.Comments(owner, repo, prNum)[0].Body, before, "the newer review stands")
	assert.Equal(t, res.outputs["comment-url"], "")
}

// A diff of no stack at all is not a clean bill of health.
func TestDiffOfNoStackIsNotGreen(t *testing.T) {
	w := newWorkspace(t)
	path := filepath.Join(w.dir, "empty.json")
	writeFile(t, path, "[]")
	res := w.run(map[string]string{"from-json": path})
	assert.Equal(t, res.code, 0, res.stdout)
	run := w.gh.CheckRuns()[0]
	assert.Equal(t, run.Conclusion, "neutral")
	assert.Equal(t, run.Output.Title, "No stack diffed")
	assert.Assert(t, is.Contains(w.gh.Comments(owner, repo, prNum)[0].Body, "cdkd diffed no stack"))
}

// A fork's token cannot write: the report goes to the job summary with a
// warning, and the step does not fail for that alone.
func TestDiffForkWithoutWritePermission(t *testing.T) {
	w := newWorkspace(t)
	w.gh.DenyWrites = true
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	res := w.run(map[string]string{"all": "true"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::"))
	assert.Assert(t, is.Contains(res.summary, "QueueName"))
	assert.Equal(t, res.outputs["comment-url"], "")
}

// Transient API failures are retried.
func TestDiffRetriesServerErrors(t *testing.T) {
	w := newWorkspace(t)
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	w.gh.FailNext(2, 502, nil, `{"message":"Bad Gateway"}`)
	res := w.run(map[string]string{"all": "true"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Len(w.gh.Comments(owner, repo, prNum), 1))
}

// An oversized diff stays within every GitHub limit and says where the full
// report is. The fake API rejects (and fails the test on) any body over a limit.
func TestDiffOversizedStaysWithinLimits(t *testing.T) {
	w := newWorkspace(t)
	path := filepath.Join(w.dir, "huge.json")
	writeFile(t, path, cdkdtest.DiffJSON(50, 400))
	res := w.run(map[string]string{"from-json": path})
	assert.Equal(t, res.code, 0, res.stdout)
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, utf8.RuneCountInString(body) <= 65536)
	assert.Assert(t, is.Contains(body, "shortened"))
	run := w.gh.CheckRuns()[0]
	assert.Assert(t, len(run.Output.Summary) <= 65535)
	assert.Assert(t, len(res.summary) < 1<<20)
	assert.Assert(t, is.Contains(res.summary, "the full report is in the report JSON file"), "the summary points at the file, not at itself")
	assert.Equal(t, res.outputs["to-update"], "5000")
	assert.Equal(t, res.outputs["to-replace"], "5000")
	report := readFile(t, res.outputs["report-json"])
	var decoded struct {
		Stacks []json.RawMessage `json:"stacks"`
	}
	assert.NilError(t, json.Unmarshal([]byte(report), &decoded))
	assert.Equal(t, len(decoded.Stacks), 50, "the report JSON is complete")
}

// recreate moves the report to the bottom; off posts no comment at all.
func TestDiffCommentModes(t *testing.T) {
	w := newWorkspace(t)
	w.stub(
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
	)
	assert.Equal(t, w.run(map[string]string{"all": "true"}).code, 0)
	first := w.gh.Comments(owner, repo, prNum)[0]
	w.gh.SeedComments(owner, repo, prNum, "octocat", "a reviewer's remark")
	res := w.run(map[string]string{"all": "true", "comment": "recreate"})
	assert.Equal(t, res.code, 0, res.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 2))
	assert.Equal(t, comments[0].Body, "a reviewer's remark")
	assert.Assert(t, comments[1].ID != first.ID, "posted anew, old one deleted")

	writes := commentWrites(w.gh)
	res = w.run(map[string]string{"all": "true", "comment": "off"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, commentWrites(w.gh), writes)
	assert.Equal(t, res.outputs["comment-url"], "")
}

// A payload that is not cdkd's diff JSON is bad input, reported as such.
func TestDiffFromJSONNotADiff(t *testing.T) {
	w := newWorkspace(t)
	path := filepath.Join(w.dir, "notes.json")
	writeFile(t, path, `{"hello": "world"}`)
	res := w.run(map[string]string{"from-json": path})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::error::input from-json: expected cdkd diff --json output"))
	assert.Assert(t, is.Contains(res.summary, "input from-json"))
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Equal(t, w.gh.Writes(), 0, "nothing half-posted")
}

// In a workflow the report file lands in the workspace, which the action's
// container and later steps share, and the output is relative to it.
func TestDiffReportJSONInTheWorkspace(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"from-json": abs(t, "../../testdata/fixtures/diff-v2.json")})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.rawOutputs["report-json"], filepath.Join(".cdkd-action", "diff.json"))
	var report struct {
		Kind   string `json:"kind"`
		Digest string `json:"digest"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(w.dir, res.rawOutputs["report-json"]))), &report))
	assert.Equal(t, report.Kind, "diff")
	assert.Assert(t, strings.HasPrefix(report.Digest, "v3:"))
}

// Local mode prints Markdown and calls no API, even inside Actions.
func TestDiffLocalMode(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"from-json": abs(t, "../../testdata/fixtures/diff-v2.json"), "app": abs(t, "../../testdata/cdkd-samples/assembly-v1")}, "GITHUB_ACTIONS=false")
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "QueueName"))
	assert.Equal(t, len(w.gh.Requests()), 0)
	for _, s := range sampleSecrets {
		assert.Assert(t, !strings.Contains(res.stdout, s), "secret %q leaked to stdout", s)
	}
}

func TestMain(m *testing.M) {
	if code, launched := launchMeasured(); launched {
		os.Exit(code)
	}
	code := checkIAMPolicies(m.Run(), os.Stderr)
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	cdkdtest.RemoveStub()
	os.Exit(code)
}

// An app token that cannot read GET /user: bot-login names our identity,
// so the diff finds and edits its own comment instead of adding another.
func TestDiffHonoursBotLogin(t *testing.T) {
	w := newWorkspace(t)
	w.gh.SetToken(token, "my-app[bot]")
	w.gh.ForbidGetUser = true
	w.stub(
		diffInvocation(t, "../../testdata/fixtures/diff-v2.json"),
		diffInvocation(t, "../../testdata/cdkd-samples/12-diff-v1-nochange-json.stdout"),
	)
	inputs := map[string]string{"all": "true", "bot-login": "my-app[bot]"}
	assert.Equal(t, w.run(inputs).code, 0)
	assert.Equal(t, w.run(inputs).code, 0)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1), "edited, not duplicated")
	assert.Assert(t, is.Contains(comments[0].Body, "No changes"))
	for _, r := range w.gh.Requests() {
		assert.Assert(t, r.Operation != "users/get-authenticated", "bot-login makes GET /user unnecessary")
	}
}
