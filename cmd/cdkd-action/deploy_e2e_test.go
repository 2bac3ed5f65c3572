package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

// The deploy tests replay a pull request's life: the diff command runs on a
// pull_request event and writes the reviewed comment; the pull request is
// merged (merge commit = GITHUB_SHA); the deploy command runs on the push.

const (
	deployPR    = 8
	reviewedSHA = "8888888888888888888888888888888888888888" // the head the diff was computed at
	laterSHA    = "7777777777777777777777777777777777777777" // a head pushed after the review
	mergeSHA    = "9999999999999999999999999999999999999999" // GITHUB_SHA of the push
	prMergeRef  = "5555555555555555555555555555555555555555" // GITHUB_SHA of the pull_request run
)

// secretOutput is a value only the assembly's NoEcho position knows secret.
const secretOutput = "rotated-pw-9f8e7d"

var maskValues = strings.Join(sampleSecrets, "\n")

// newDeployWorkspace seeds pull request #8, merged into GITHUB_SHA, with the
// given head and labels.
func newDeployWorkspace(t *testing.T, head string, labels ...string) *workspace {
	t.Helper()
	w := newWorkspace(t)
	w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: head, HeadRef: "rename-queue", BaseRef: "main",
		Merged: true, MergeCommitSHA: mergeSHA, Labels: labels})
	w.createdFromAssembly()
	return w
}

// createdFromAssembly leaves, where cdkd would synthesize it, a cloud
// assembly holding the templates of the resources the deploy fixtures
// create (and nothing else: every other value stays at an unknown
// position), so the diff binds what they are created with.
func (w *workspace) createdFromAssembly() {
	w.t.Helper()
	copyDir(w.t, "testdata/deploy/created", filepath.Join(w.dir, "cdk.out"))
}

// onPullRequest makes the next step run on a pull_request event of #8 at head.
func (w *workspace) onPullRequest(head string) { w.onPullRequestInto(deployPR, head, "main") }

// onPullRequestInto makes the next step run on a pull_request event of
// pull request number, proposed into base, at head.
func (w *workspace) onPullRequestInto(number int, head, base string) {
	w.t.Helper()
	payload := fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d,"state":"open",`+
		`"head":{"ref":"rename-queue","sha":%q,"repo":{"full_name":"octo-org/octo-repo"}},`+
		`"base":{"ref":%q,"repo":{"full_name":"octo-org/octo-repo"}},"labels":[]}}`, number, number, head, base)
	path := filepath.Join(w.dir, fmt.Sprintf("pr%d-event.json", number))
	writeFile(w.t, path, payload)
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"], w.vars["GITHUB_SHA"] = "pull_request", path, prMergeRef
	w.vars["GITHUB_REF"] = fmt.Sprintf("refs/pull/%d/merge", number)
}

// onPush makes the next step run on the push of the merge commit to main.
func (w *workspace) onPush() {
	w.t.Helper()
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"], w.vars["GITHUB_SHA"] = "push", abs(w.t, "testdata/deploy/push.json"), mergeSHA
	w.vars["GITHUB_REF"] = "refs/heads/main"
}

func diffInputs() map[string]string {
	return map[string]string{"all": "true", "mask-values": maskValues}
}

func deployInputs(extra ...string) map[string]string {
	in := map[string]string{"command": "deploy", "all": "true", "mask-values": maskValues}
	for i := 0; i+1 < len(extra); i += 2 {
		in[extra[i]] = extra[i+1]
	}
	return in
}

func gateDiff(t *testing.T, file string) cdkdtest.Invocation {
	t.Helper()
	return cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, Env: map[string]string{"CDKD_NO_LIVE": "1"}, StdoutFile: abs(t, file)}
}

// deployInvocation is the deploy of the stacks the deploy fixtures' change
// set changes (StackA and StackB, unless stacks names others): exactly
// those, with --exclusively, whatever the inputs' selection.
func deployInvocation(t *testing.T, stacks ...string) cdkdtest.Invocation {
	t.Helper()
	if len(stacks) == 0 {
		stacks = []string{"StackA", "StackB"}
	}
	return cdkdtest.Invocation{Args: append(append([]string{"deploy"}, stacks...), "--exclusively", "-y"), Env: map[string]string{"CDKD_NO_LIVE": "1"},
		StdoutFile: abs(t, "testdata/deploy/deploy.stdout"), StderrLines: []cdkdtest.Line{{Text: "QueueUrl=http://localhost:4566/000000000000/s3cr3t-pw-from-sm differs from SQSClient resolved endpoint"}}}
}

func fileInvocation(t *testing.T, file string, args ...string) cdkdtest.Invocation {
	t.Helper()
	return cdkdtest.Invocation{Args: args, StdoutFile: abs(t, "testdata/deploy/"+file)}
}

// resultInvocations read back a deploy of both stacks: StackA's new run,
// StackB with no run since the deploy started, and both states.
func resultInvocations(t *testing.T, runFile string) []cdkdtest.Invocation {
	t.Helper()
	return resultInvocationsOf(t, runFile, "StackA", "StackB")
}

// resultInvocationsOf read back a deploy of the stacks named, of StackA
// and StackB: nothing is read of a stack the deploy was not given.
func resultInvocationsOf(t *testing.T, runFile string, stacks ...string) []cdkdtest.Invocation {
	t.Helper()
	var out []cdkdtest.Invocation
	if slices.Contains(stacks, "StackA") {
		out = append(out,
			fileInvocation(t, "events-StackA.json", "events", "StackA", "--json"),
			fileInvocation(t, runFile, "events", "StackA", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
			fileInvocation(t, "state-StackA.json", "state", "show", "StackA", "--json"))
	}
	if slices.Contains(stacks, "StackB") {
		out = append(out,
			fileInvocation(t, "events-StackB.json", "events", "StackB", "--json"),
			fileInvocation(t, "state-StackB.json", "state", "show", "StackB", "--json"))
	}
	return out
}

// changedStacks are the stacks a cdkd diff JSON shows changes in, sorted:
// what a gated deploy of it passes cdkd (with the importers of their
// exports, which the caller adds).
func changedStacks(t *testing.T, diffFile string) []string {
	t.Helper()
	var nodes []struct {
		Stack         string            `json:"stack"`
		Changes       []json.RawMessage `json:"changes"`
		OutputChanges []json.RawMessage `json:"outputChanges"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, diffFile)), &nodes))
	var out []string
	for _, n := range nodes {
		if len(n.Changes)+len(n.OutputChanges) > 0 {
			out = append(out, n.Stack)
		}
	}
	slices.Sort(out)
	return out
}

// review runs the diff command on #8 at head: the reviewed comment.
func (w *workspace) review(head string, inputs map[string]string, extraEnv ...string) marker.Header {
	w.t.Helper()
	return w.reviewPR(deployPR, "main", head, inputs, extraEnv...)
}

// reviewPR runs the diff command on pull request number (into base) at
// head, then makes the next step run on the push.
func (w *workspace) reviewPR(number int, base, head string, inputs map[string]string, extraEnv ...string) marker.Header {
	w.t.Helper()
	w.onPullRequestInto(number, head, base)
	res := w.run(inputs, extraEnv...)
	assert.Equal(w.t, res.code, 0, res.stdout)
	comments := w.gh.Comments(owner, repo, number)
	assert.Assert(w.t, len(comments) > 0)
	h, ok := marker.Parse(comments[len(comments)-1].Body)
	assert.Assert(w.t, ok)
	assert.Assert(w.t, h.Digest != "")
	w.onPush()
	return h
}

func deployCheck(t *testing.T, gh *githubtest.Server) githubtest.CheckRun {
	t.Helper()
	for _, cr := range gh.CheckRuns() {
		if strings.HasPrefix(cr.Name, "cdkd deploy") {
			return cr
		}
	}
	t.Fatal("no cdkd deploy check run")
	return githubtest.CheckRun{}
}

func prComment(t *testing.T, gh *githubtest.Server) githubtest.Comment {
	t.Helper()
	comments := gh.Comments(owner, repo, deployPR)
	var ours []githubtest.Comment
	for _, c := range comments {
		if c.Login == githubtest.DefaultLogin {
			ours = append(ours, c)
		}
	}
	assert.Assert(t, is.Len(ours, 1), "one comment of ours per pull request and label")
	return ours[0]
}

func TestDeployReviewedChangeSet(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the review
		gateDiff(t, "testdata/deploy/diff-safe.json"), // the gate
		deployInvocation(t),
	}, resultInvocations(t, "events-StackA-run.json")...)...)
	reviewed := w.review(reviewedSHA, diffInputs())

	res := w.run(deployInputs("environment", "production", "environment-url-output", "StackA.SiteUrl"))
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Equal(t, res.outputs["failure-reason"], "")
	assert.Equal(t, res.outputs["digest"], reviewed.Digest, "the digest output is the reviewed change set's")

	var outs map[string]map[string]string
	assert.NilError(t, json.Unmarshal([]byte(res.outputs["stack-outputs"]), &outs))
	assert.DeepEqual(t, outs, map[string]map[string]string{
		"StackA": {"BucketName": "stacka-bucket83908e77", "QueueUrl": "http://localhost:4566/000000000000/***", "SiteUrl": "https://app.example.com/"},
		"StackB": {"ImportedBucket": "stacka-bucket83908e77"},
	})

	// cdkd deploy ran with the same selection, without the live renderer,
	// its progress streamed (redacted) into the log.
	for _, c := range stub.Calls(t) {
		if len(c.Args) > 0 && c.Args[0] == "deploy" {
			assert.Equal(t, c.Env["CDKD_NO_LIVE"], "1")
		}
	}
	assert.Assert(t, is.Contains(res.stdout, "Deployment Summary:"))
	assert.Assert(t, is.Contains(res.stdout, "[1/2] ✓ TopicBFC7AF6E (AWS::SNS::Topic) updated"))

	check := deployCheck(t, w.gh)
	assert.Equal(t, check.Name, "cdkd deploy")
	assert.Equal(t, check.HeadSHA, mergeSHA)
	assert.Equal(t, check.Conclusion, "success")
	assert.Assert(t, is.Contains(check.Output.Summary, "Deployed"))
	assert.Equal(t, res.outputs["check-run-url"], check.HTMLURL)

	// The reviewed comment gains the outcome and is still the review.
	c := prComment(t, w.gh)
	h, ok := marker.Parse(c.Body)
	assert.Assert(t, ok, "the header still parses")
	assert.DeepEqual(t, h, reviewed)
	assert.Assert(t, is.Contains(c.Body, "### cdkd diff"))
	assert.Assert(t, is.Contains(c.Body, "✅ **Deployed** at `9999999`"))
	assert.Assert(t, is.Contains(c.Body, "`NewQueue1C62264E` · `AWS::SQS::Queue`"))
	assert.Equal(t, res.outputs["comment-url"], c.HTMLURL)

	for _, s := range []string{"1 created, 2 updated", "recorded no run", "`QueueUrl`: `http://localhost:4566/000000000000/***`", "reviewed at `8888888`"} {
		assert.Assert(t, is.Contains(res.summary, s))
	}

	deps := w.gh.Deployments()
	assert.Assert(t, is.Len(deps, 1))
	assert.Equal(t, deps[0].Ref, mergeSHA)
	assert.Equal(t, deps[0].Environment, "production")
	assert.Assert(t, is.Len(deps[0].Statuses, 2))
	assert.Equal(t, deps[0].Statuses[0].State, "in_progress")
	assert.Equal(t, deps[0].Statuses[1].State, "success")
	assert.Equal(t, deps[0].Statuses[1].EnvironmentURL, "https://app.example.com/")

	var report struct {
		Outcome  string `json:"outcome"`
		Deployed bool   `json:"deployed"`
		Digest   string `json:"digest"`
		Review   struct {
			Reviewed bool   `json:"reviewed"`
			Digest   string `json:"digest"`
		} `json:"review"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
	assert.Assert(t, report.Deployed && report.Review.Reviewed)
	assert.Equal(t, report.Digest, reviewed.Digest)
	assert.Equal(t, report.Review.Digest, reviewed.Digest)
	assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)

	// A second deploy of the same commit replaces the outcome, not adds one.
	w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)},
		resultInvocations(t, "events-StackA-run.json")...)...)
	again := w.run(deployInputs())
	assert.Equal(t, again.code, 0, again.stdout)
	body := prComment(t, w.gh).Body
	assert.Equal(t, strings.Count(body, "<!-- cdkd-action-deploy -->"), 1)
	assert.Equal(t, strings.Count(body, "### cdkd deploy"), 1)
}

func TestDeployRefusesChangedDiff(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.gh.ForbidGetUser = true // GITHUB_TOKEN: our comments are github-actions[bot]'s
	stub := w.stub(
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-changed.json"),
	)
	// An assembly places the values, so the changed one shows.
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t) // and so cdkd deploy never ran
	assert.Equal(t, res.outputs["failure-reason"], "diff-changed")
	assert.Equal(t, res.outputs["deployed"], "false")

	check := deployCheck(t, w.gh)
	assert.Equal(t, check.Conclusion, "failure")
	assert.Equal(t, check.Output.Title, "Diff changed since review")
	for _, text := range []string{check.Output.Summary, res.summary, prComment(t, w.gh).Body} {
		assert.Assert(t, is.Contains(text, "What changed since the review"))
		assert.Assert(t, is.Contains(text, "**new** resource `SneakyRole0A1B2C3D` · `AWS::IAM::Role` in `StackA`: now **create**"))
		assert.Assert(t, is.Contains(text, "`DisplayName`: reviewed `\"fixture-topic-v1\"` → `\"fixture-topic-v2\"`, now `\"fixture-topic-v1\"` → `\"fixture-topic-v3\"`"))
	}
	assert.Assert(t, is.Contains(res.stdout, "::error::Deploy refused: Diff changed since review"))
	assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)

	// The current digest is not printed whole anywhere a reader with write
	// access sees it: it would be the value to paste into the comment.
	var report struct {
		Digest string `json:"digest"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
	assert.Assert(t, strings.HasPrefix(report.Digest, "v3:") && len(report.Digest) > 40, report.Digest)
	assert.Assert(t, is.Contains(res.stdout, report.Digest[:15]), "a short prefix tells them apart")
	for where, text := range map[string]string{"log": res.stdout, "summary": res.summary, "check run": check.Output.Title + check.Output.Summary, "comment": prComment(t, w.gh).Body} {
		assert.Assert(t, !strings.Contains(text, report.Digest), "the current digest is printed whole in the %s", where)
	}
}

func TestDeployRefusesStaleReview(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
	w.review(reviewedSHA, diffInputs())
	w.gh.PushToPullRequest(owner, repo, deployPR, laterSHA) // a commit pushed after the review, whose diff never ran
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "stale-review")
	assert.Assert(t, is.Contains(res.stdout, "::error::Deploy refused: Review is stale: The diff on pull request #8 was reviewed at 8888888, but the pull request's final head is 7777777"))
	assert.Equal(t, deployCheck(t, w.gh).Output.Title, "Review is stale")
}

// A token that cannot read GET /user (an app's installation token) posts as
// an identity the action cannot learn: bot-login names it.
func TestDeployBotLogin(t *testing.T) {
	const app, appToken = "deployer[bot]", "ghs_app_token"
	w := newDeployWorkspace(t, reviewedSHA)
	w.gh.SetToken(appToken, app)
	w.gh.ForbidGetUser = true
	w.vars["INPUT_GITHUB-TOKEN"] = appToken
	stub := w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		deployInvocation(t),
	}, resultInvocations(t, "events-StackA-run.json")...)...)
	w.review(reviewedSHA, diffInputs())

	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff", "github-actions[bot] assumed: the app's comment is not trusted")
	assert.Assert(t, is.Contains(res.stdout, "by deployer[bot]: it carries cdkd-action's header but was not written by github-actions[bot]"))

	// The app's check runs vouch only when trusted-app names it.
	res = w.run(deployInputs("bot-login", app, "trusted-app", "deployer"))
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
}

// Anyone can paste our header into a comment; only our identity's count.
func TestDeployIgnoresSpoofedHeader(t *testing.T) {
	const mallory, malloryToken = "mallory", "ghp_mallory"
	spoof := func(w *workspace) {
		w.gh.SetToken(malloryToken, mallory)
		in := diffInputs()
		in["github-token"] = malloryToken
		w.review(reviewedSHA, in)
	}

	t.Run("no comment of ours", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.stub(gateDiff(t, "testdata/deploy/diff-changed.json"))
		spoof(w)
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
		spoofed := w.gh.Comments(owner, repo, deployPR)[0]
		assert.Equal(t, spoofed.Login, mallory)
		assert.Assert(t, is.Contains(res.stdout, "::warning::ignored comment "+spoofed.HTMLURL+" by mallory"))
		assert.Assert(t, is.Contains(res.stdout, "spoof"))
		assert.Assert(t, is.Contains(res.stdout, "::error::Deploy refused: No reviewed diff: Pull request #8 has no diff comment written by github-actions[bot]"))
		// The refusal is posted in a comment of its own kind: not a review.
		c := prComment(t, w.gh)
		h, ok := marker.Parse(c.Body)
		assert.Assert(t, ok)
		assert.Equal(t, h.Kind, "deploy")
		assert.Equal(t, h.Digest, "")
		assert.Assert(t, is.Contains(c.Body, "Deploy refused: No reviewed diff"))
	})

	t.Run("ours and a newer spoof", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.stub(
			gateDiff(t, "testdata/deploy/diff-safe.json"),    // our review
			gateDiff(t, "testdata/deploy/diff-changed.json"), // mallory's "review"
			gateDiff(t, "testdata/deploy/diff-changed.json"), // the gate
		)
		w.review(reviewedSHA, diffInputs())
		spoof(w)
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "diff-changed", "compared with our review, not mallory's")
		assert.Assert(t, is.Contains(res.stdout, "by mallory"))
		// Mallory's run also created a newer "cdkd diff" check run; it is
		// not the app our identity belongs to, so it records nothing.
		assert.Assert(t, is.Contains(res.stdout, "::warning::ignored check run"))
		assert.Assert(t, is.Contains(res.stdout, "created by the app mallory, not github-actions"))
	})
}

// digestOf is the digest the diff command records for a cdkd diff output.
func digestOf(t *testing.T, file string) string {
	t.Helper()
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(gateDiff(t, file))
	return w.review(reviewedSHA, diffInputs()).Digest
}

// Anyone with write access can edit the bot's diff comment, and GitHub
// keeps its author. They cannot edit the diff's check run, which records
// the review too: the deploy cross-checks the comment with it.
func TestDeployRefusesEditedComment(t *testing.T) {
	changed := digestOf(t, "testdata/deploy/diff-changed.json")
	// forge makes our comment claim the change set about to be deployed,
	// with or without the stored change set line under the header.
	forge := func(t *testing.T, w *workspace, keepChangeSet bool) {
		t.Helper()
		c := prComment(t, w.gh)
		lines := strings.SplitN(c.Body, "\n", 3)
		assert.Assert(t, is.Len(lines, 3))
		assert.Assert(t, strings.HasPrefix(lines[1], "<!-- cdkd-action-changeset:v1 "))
		h, ok := marker.Parse(lines[0])
		assert.Assert(t, ok)
		h.Digest = changed
		body := h.String() + "\n"
		if keepChangeSet {
			body += lines[1] + "\n"
		}
		edited := w.gh.EditComment(owner, repo, c.ID, body+lines[2])
		assert.Equal(t, edited.Login, githubtest.DefaultLogin, "the author stays the bot")
	}
	noCheckRun := diffInputs()
	noCheckRun["check-run"] = "false"

	t.Run("the diff check run records another digest", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json")) // the review only: the deploy refuses before its diff
		w.review(reviewedSHA, diffInputs())
		var record string
		for _, cr := range w.gh.CheckRuns() {
			if cr.Name == "cdkd diff" {
				record = cr.ExternalID
			}
		}
		assert.Assert(t, strings.HasPrefix(record, "cdkd-action:v3:diff:comment:r"+itoa(prcomment.RendererVersion)+":"), "the diff's check run records the review")
		forge(t, w, false)
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
		assert.Equal(t, res.outputs["deployed"], "false")
		assert.Assert(t, is.Contains(res.stdout, "::error::Deploy refused: Review cannot be trusted: The digest in the diff comment on pull request #8 ("+changed[:15]+") is not the one the diff check run recorded"))
		assert.Assert(t, is.Contains(res.stdout, "the comment may have been edited"))
		check := deployCheck(t, w.gh)
		assert.Equal(t, check.Output.Title, "Review cannot be trusted")
		for where, text := range map[string]string{"log": res.stdout, "summary": res.summary, "check run": check.Output.Summary} {
			assert.Assert(t, !strings.Contains(text, changed), "the current digest is printed whole in the %s", where)
		}
	})
	t.Run("the stored change set gives it away", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.review(reviewedSHA, noCheckRun)
		forge(t, w, true)
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
		assert.Assert(t, is.Contains(res.stdout, "::error::Deploy refused: Review cannot be trusted: The diff comment on pull request #8 was altered after the diff wrote it"))
		assert.Assert(t, is.Contains(res.stdout, "does not match the header's digest"))
	})
	t.Run("without a diff check run nothing vouches for the comment", func(t *testing.T) {
		// check-run: false (or a cancelled diff) leaves only the comment,
		// which anyone with write access can edit: the gate refuses.
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(
			gateDiff(t, "testdata/deploy/diff-safe.json"),
			gateDiff(t, "testdata/deploy/diff-safe.json"),
		)
		w.review(reviewedSHA, noCheckRun)
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
		assert.Equal(t, res.outputs["deployed"], "false")
		stub.AssertAllUsed(t)
		assert.Assert(t, is.Contains(res.stdout, "No diff check run on 8888888 records the review of pull request #8"))
	})
}

// The same head proposed to two branches: the pull request into another
// branch than the one pushed must not lend its labels (or its review).
func TestDeployIgnoresAnotherBranchsPullRequest(t *testing.T) {
	const (
		v2     = "../../testdata/fixtures/diff-v2.json" // deletes ExtraTopic, replaces Queue
		ffSHA  = "6666666666666666666666666666666666666666"
		otherM = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		ours   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	)
	w := newWorkspace(t)
	w.createdFromAssembly()
	// #6 (listed first) into release carries the destructive label; #8
	// into main, fast-forwarded (its head is the pushed commit), does not.
	w.gh.AddPullRequest(githubtest.PR{Number: 6, HeadSHA: ffSHA, HeadRef: "rename-queue", BaseRef: "release", Merged: true, MergeCommitSHA: otherM,
		Labels: []string{"cdkd:allow-destructive"}})
	w.gh.AddPullRequest(githubtest.PR{Number: deployPR, HeadSHA: ffSHA, HeadRef: "rename-queue", BaseRef: "main", Merged: true, MergeCommitSHA: ours})
	stub := w.stub(gateDiff(t, v2), gateDiff(t, v2), gateDiff(t, v2))
	w.reviewPR(6, "release", ffSHA, diffInputs())
	w.reviewPR(deployPR, "main", ffSHA, diffInputs())
	w.onPush()
	w.vars["GITHUB_SHA"] = ffSHA

	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t) // and so cdkd deploy never ran
	assert.Equal(t, res.outputs["failure-reason"], "destructive-refused", "#6's label does not apply to a push to main")
	assert.Assert(t, is.Contains(res.summary, "⛔ **refused**"))
	var report struct {
		Review struct {
			PullRequest int `json:"pullRequest"`
		} `json:"review"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
	assert.Equal(t, report.Review.PullRequest, deployPR)

	// Pushed to release, the same commit is #6's.
	w.stub(gateDiff(t, v2))
	w.vars["GITHUB_REF"] = "refs/heads/release"
	res = w.run(deployInputs())
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
	assert.Equal(t, report.Review.PullRequest, 6)
}

// A workflow_dispatch on the merge commit finds the merged pull request as a
// push does: the gate applies to it in full.
func TestDeployDispatchOnMergeCommit(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		deployInvocation(t),
	}, resultInvocations(t, "events-StackA-run.json")...)...)
	w.review(reviewedSHA, diffInputs())
	event := filepath.Join(w.dir, "dispatch.json")
	writeFile(t, event, `{"ref":"refs/heads/main","inputs":{},"sender":{"login":"octocat"}}`)
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"] = "workflow_dispatch", event
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Assert(t, is.Contains(res.summary, "reviewed at `8888888`"))
}

// With app a command, cdkd synthesizes on every run. The deploy reads the
// assembly the gate's diff synthesized, so that it applies exactly the
// templates that were compared, whatever a second synth would give.
func TestDeployReadsTheDiffedAssembly(t *testing.T) {
	const app = "node bin/app.js"
	asm := abs(t, "testdata/deploy/assembly")
	synthDiff := func(t *testing.T) cdkdtest.Invocation {
		inv := gateDiff(t, "testdata/deploy/diff-safe.json")
		inv.Args = append(inv.Args, "--app", app)
		return inv
	}
	inputs := func(base map[string]string) map[string]string {
		base["app"], base["resolve-secrets"] = app, "false"
		return base
	}

	t.Run("the gate's diff wrote cdk.out", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		dir, err := filepath.EvalSymlinks(w.dir)
		assert.NilError(t, err)
		out := filepath.Join(dir, "cdk.out")
		deploy := deployInvocation(t)
		deploy.Args = append(deploy.Args, "--app", out)
		stub := w.stub(append([]cdkdtest.Invocation{synthDiff(t), synthDiff(t), deploy}, resultInvocations(t, "events-StackA-run.json")...)...)
		w.synthesizingCdkd(asm, out)
		w.review(reviewedSHA, inputs(diffInputs()))
		assert.NilError(t, os.RemoveAll(out)) // the deploy job starts from a fresh checkout
		res := w.run(inputs(deployInputs()), "AWS_REGION=us-east-1")
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Assert(t, is.Contains(res.stdout, "::notice::cdkd deploy reads the cloud assembly the gate's diff synthesized ("+out+")"))
		assert.Assert(t, is.Contains(res.summary, "so it deploys exactly the templates that were compared"))
		assert.Assert(t, !strings.Contains(res.stdout, "synthesizes the app again"))
	})
	t.Run("a cdk.out the diff did not write may be stale", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		deploy := deployInvocation(t)
		deploy.Args = append(deploy.Args, "--app", app)
		stub := w.stub(append([]cdkdtest.Invocation{synthDiff(t), synthDiff(t), deploy}, resultInvocations(t, "events-StackA-run.json")...)...)
		// Left by an earlier step in both jobs (cdkd writes elsewhere): the
		// review and the deploy place secrets alike, so their digests match.
		copyDir(t, asm, filepath.Join(w.dir, "cdk.out"))
		w.review(reviewedSHA, inputs(diffInputs()))
		res := w.run(inputs(deployInputs()), "AWS_REGION=us-east-1")
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		// In-process the working directory is the workspace's, named in full.
		assert.Assert(t, is.Contains(res.stdout, "::warning::cdkd deploy synthesizes the app again: the cloud assembly in "+filepath.Join(w.dir, "cdk.out")+" was not written by the gate's cdkd diff (it may be stale)"))
	})
}

// synthesizingCdkd puts a cdkd in front of the stub that, like cdkd, writes
// the assembly it synthesizes (a copy of asm) to out on each diff.
func (w *workspace) synthesizingCdkd(asm, out string) {
	w.t.Helper()
	stub := w.vars["INPUT_CDKD-PATH"]
	script := filepath.Join(w.dir, "cdkd-synth")
	writeFile(w.t, script, fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = diff ]; then rm -rf '%[2]s' && cp -R '%[1]s' '%[2]s' || exit 97; fi\nexec '%[3]s' \"$@\"\n", asm, out, stub))
	assert.NilError(w.t, os.Chmod(script, 0o755))
	w.vars["INPUT_CDKD-PATH"] = script
}

func TestDeployWithoutPullRequest(t *testing.T) {
	t.Run("gate on", func(t *testing.T) {
		w := newWorkspace(t)
		w.onPush()
		stub := w.stub() // nothing may run: no review, no deploy
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
		assert.Assert(t, is.Contains(res.summary, "No pull request was found for commit 9999999"))
		assert.Equal(t, deployCheck(t, w.gh).Output.Title, "No reviewed diff")
	})
	t.Run("gate off", func(t *testing.T) {
		w := newWorkspace(t)
		w.onPush()
		stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, "testdata/deploy/diff-safe.json"), deployInvocation(t)},
			resultInvocations(t, "events-StackA-run.json")...)...)
		res := w.run(deployInputs("require-reviewed-diff", "false"))
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["deployed"], "true")
		assert.Assert(t, is.Contains(res.stdout, "::warning::No pull request was found"))
		var report struct {
			Digest string `json:"digest"`
		}
		assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
		assert.Assert(t, strings.HasPrefix(report.Digest, "v3:"), "the unreviewed change set's digest is recorded")
		assert.Assert(t, is.Contains(res.summary, "not verified against a review"))
		assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
	})
}

func TestDeployDestructivePolicy(t *testing.T) {
	const v2 = "../../testdata/fixtures/diff-v2.json" // deletes ExtraTopic, replaces Queue (QueueName)
	t.Run("refused", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		stub := w.stub(gateDiff(t, v2), gateDiff(t, v2))
		w.review(reviewedSHA, diffInputs())
		res := w.run(deployInputs())
		assert.Equal(t, res.code, 1, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["failure-reason"], "destructive-refused")
		for _, s := range []string{
			"⛔ **refused**: ➖ **delete** `ExtraTopic17EFD352` (`AWS::SNS::Topic`) in `StackA`",
			"⛔ **refused**: ♻️ **replace** `Queue4A7E3555` (`AWS::SQS::Queue`) in `StackA`, forced by `QueueName`",
		} {
			assert.Assert(t, is.Contains(res.summary, s))
		}
		assert.Equal(t, deployCheck(t, w.gh).Output.Title, "Destructive changes refused")
		assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
	})
	allowed := func(t *testing.T, w *workspace, approve func(), extra ...string) {
		t.Helper()
		stub := w.stub(gateDiff(t, v2), gateDiff(t, v2), deployInvocation(t),
			fileInvocation(t, "events-StackA.json", "events", "StackA", "--json"),
			fileInvocation(t, "events-StackA-run.json", "events", "StackA", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
			fileInvocation(t, "state-StackA.json", "state", "show", "StackA", "--json"),
			fileInvocation(t, "events-StackB.json", "events", "StackB", "--json"),
			fileInvocation(t, "state-StackB.json", "state", "show", "StackB", "--json"))
		w.review(reviewedSHA, diffInputs())
		if approve != nil {
			approve()
		}
		res := w.run(deployInputs(extra...))
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["deployed"], "true")
		assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
		assert.Assert(t, is.Contains(res.summary, "✅ allowed by"))
	}
	t.Run("allowed by label", func(t *testing.T) {
		// A writer other than the author labels it after the diff posted
		// its review, before the merge: the label approves as a review
		// would.
		w := newDeployWorkspace(t, reviewedSHA)
		allowed(t, w, func() {
			w.writers("carol")
			w.mergeLater()
			w.gh.LabelNow(owner, repo, deployPR, "cdkd:allow-destructive", "carol")
		})
	})
	t.Run("allowed by type", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		allowed(t, w, nil, "allow-destroy-types", "AWS::SNS::Topic, AWS::SQS::Queue")
	})
	t.Run("one type allowed is not enough", func(t *testing.T) {
		w := newDeployWorkspace(t, reviewedSHA)
		w.stub(gateDiff(t, v2), gateDiff(t, v2))
		w.review(reviewedSHA, diffInputs())
		res := w.run(deployInputs("allow-destroy-types", "AWS::SNS::Topic"))
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "destructive-refused")
		assert.Assert(t, is.Contains(res.summary, "✅ allowed by allow-destroy-types (AWS::SNS::Topic)"))
	})
}

// Sample 31: another job holds StackA's lock.
func TestDeployStateLocked(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"},
			StdoutFile: abs(t, "../../testdata/cdkd-samples/31-deploy-stackA-locked.stdout"),
			StderrFile: abs(t, "../../testdata/cdkd-samples/31-deploy-stackA-locked.stderr"), Exit: 1},
	)
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 3, res.stdout)
	stub.AssertAllUsed(t) // no events or state read after a lock refusal
	assert.Equal(t, res.outputs["failure-reason"], "state-locked")
	for _, text := range []string{res.summary, deployCheck(t, w.gh).Output.Summary, prComment(t, w.gh).Body} {
		assert.Assert(t, is.Contains(text, "is locked by `ci-job-42@runner-7` (operation `deploy`); the lock expires in 12m49s"))
		assert.Assert(t, is.Contains(text, "cdkd force-unlock StackA --stack-region us-east-1"))
		assert.Assert(t, !strings.Contains(text, "Use --force-unlock"), "cdkd's hint names a flag that does not exist")
	}
	assert.Assert(t, is.Contains(res.stdout, "::error::Deploy not started: state locked"))
}

func TestDeployPartialFailure(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stdout: "Deploying stack: StackA\n",
			Stderr: "PartialFailureError: 1 resource(s) were left unaddressed; re-run cdkd deploy to finish\n", Exit: 2},
	}, resultInvocations(t, "events-StackA-run-partial.json")...)...)
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 3, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "partial")
	assert.Equal(t, res.outputs["deployed"], "partial", "StackA's topic was updated before cdkd exited 2: not false")
	assert.Assert(t, is.Contains(res.summary, "⚠️ **Partially deployed**"))
	assert.Assert(t, is.Contains(res.summary, "❌ **failed** `NewQueue1C62264E` · `AWS::SQS::Queue` · 41 ms: QueueDeletedRecently: You must wait 60 seconds"))
	assert.Equal(t, deployCheck(t, w.gh).Conclusion, "failure")
	assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
}

// The runner cancels a job with SIGINT/SIGTERM and kills it about 10
// seconds later: cdkd gets SIGINT to release its lock, and the action
// reports "cancelled" well before the kill.
func TestDeployCancelled(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	stub := w.stub(
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stdout: "Deploying stack: StackA\n",
			StderrLines: []cdkdtest.Line{{Text: "still deploying", DelayMs: 120000}},
			OnSigint:    &cdkdtest.Sigint{Stdout: "Interrupted: released the lock for StackA\n", Exit: 1}},
	)
	w.review(reviewedSHA, diffInputs())
	p := w.start(deployInputs("environment", "production"))
	p.waitFor(t, "Deploying stack: StackA", 60*time.Second)
	assert.NilError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	res := p.wait(t, 10*time.Second)
	assert.Assert(t, res.code != 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "cancelled")
	assert.Equal(t, res.outputs["deployed"], "false")
	assert.Assert(t, is.Contains(res.stdout, "Interrupted: released the lock for StackA"), "cdkd got SIGINT and released its lock")
	assert.Assert(t, is.Contains(res.summary, "🛑 **Deploy cancelled**"))
	assert.Equal(t, deployCheck(t, w.gh).Conclusion, "cancelled")
	deps := w.gh.Deployments()
	assert.Assert(t, is.Len(deps, 1))
	assert.Equal(t, deps[0].Statuses[len(deps[0].Statuses)-1].State, "failure")
}

// A stack output is hidden when the assembly marks it secret (it reads a
// NoEcho parameter) and when its value holds a registered secret.
func TestDeployHidesSecretOutputs(t *testing.T) {
	w := newWorkspace(t)
	w.onPush()
	asm := abs(t, "testdata/deploy/assembly")
	with := func(inv cdkdtest.Invocation) cdkdtest.Invocation {
		inv.ArgsContain, inv.Args = inv.Args, nil
		return inv
	}
	stub := w.stub(
		with(gateDiff(t, "testdata/deploy/diff-safe.json")),
		with(deployInvocation(t)),
		fileInvocation(t, "events-StackA.json", "events", "StackA", "--json"),
		fileInvocation(t, "events-StackA-run.json", "events", "StackA", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
		fileInvocation(t, "state-StackA-noecho.json", "state", "show", "StackA", "--json"),
		fileInvocation(t, "events-StackB.json", "events", "StackB", "--json"),
		fileInvocation(t, "state-StackB.json", "state", "show", "StackB", "--json"),
	)
	res := w.run(deployInputs("require-reviewed-diff", "false", "app", asm, "resolve-secrets", "false"), "AWS_REGION=us-east-1")
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	var outs map[string]map[string]string
	assert.NilError(t, json.Unmarshal([]byte(res.outputs["stack-outputs"]), &outs))
	assert.Equal(t, outs["StackA"]["DbPasswordEcho"], "***", "hidden by position")
	assert.Equal(t, outs["StackA"]["QueueUrl"], "http://localhost:4566/000000000000/***", "redacted by value")
	assert.Equal(t, outs["StackA"]["BucketName"], "stacka-bucket83908e77")
	assert.Assert(t, is.Contains(res.summary, "`DbPasswordEcho`: `***` · 🔒 secret"))
	assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
}

// A partial deploy whose events cannot be read never says "no resource
// changed" nor deployed=false: what changed is not known, and the report
// says how to find out.
func TestDeployPartialWithUnreadableEvents(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	invs := resultInvocations(t, "events-StackA-run-partial.json")
	invs[0] = cdkdtest.Invocation{Args: []string{"events", "StackA", "--json"}, Stderr: "AccessDenied: not allowed to read s3://state\n", Exit: 1}
	invs = append(invs[:1], invs[2:]...) // the run's events are never reached
	stub := w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stdout: "Deploying stack: StackA\n",
			Stderr: "PartialFailureError: 1 resource(s) were left unaddressed; re-run cdkd deploy to finish\n", Exit: 2},
	}, invs...)...)
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 3, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "partial")
	assert.Equal(t, res.outputs["deployed"], "partial", "not known: never false")
	for _, text := range []string{res.summary, deployCheck(t, w.gh).Output.Summary} {
		assert.Assert(t, is.Contains(text, "**Partially deployed** at `9999999` · changes not known"), text)
		assert.Assert(t, is.Contains(text, "<b>StackA</b> · us-east-1 · changes not known"))
		assert.Assert(t, is.Contains(text, "cdkd events StackA --stack-region us-east-1"))
		assert.Assert(t, is.Contains(text, "cdkd state show StackA --stack-region us-east-1"))
	}
}
