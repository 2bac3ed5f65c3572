package main

// What a new user trips on: a typo in stacks, an empty cdk.out, inputs
// exported from a shell, an empty token. Each is said in one line, and
// classified by its cause.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// A typo among the stacks is refused before cdkd runs, named, whatever
// the command: cdkd drops a pattern that matches nothing when another one
// matches, so StackA alone would be diffed (or deployed) without a word.
func TestStacksTypoIsBadInput(t *testing.T) {
	const typo = `input stacks: "NoSuchStak": this pattern matches no stack of the cloud assembly (it holds StackA); each pattern must match at least one, or cdkd would quietly leave it out`
	t.Run("diff in a workflow", func(t *testing.T) {
		w := newWorkspace(t)
		copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
		stub := w.stub() // cdkd must not run
		res := w.run(map[string]string{"stacks": "StackA NoSuchStak", "app": "cdk.out"})
		assert.Equal(t, res.code, 2, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "bad-input")
		assert.Assert(t, is.Contains(res.stdout, "::error::"+typo), res.stdout)
		assert.Assert(t, res.summary != "", "the job summary is written")
		stub.AssertAllUsed(t)
	})
	for _, args := range [][]string{
		{"diff"},
		{"deploy", "--dry-run"},
		{"plan"},
	} {
		t.Run("local "+args[0], func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, "testdata/deploy/assembly", filepath.Join(dir, "cdk.out"))
			outputs := filepath.Join(dir, "outputs.json")
			res := runCLI(t, dir, nil, append(args, "--stacks=StackA NoSuchStak", "--app=cdk.out", "--cdkd-path=/nonexistent/cdkd", "--outputs-file="+outputs)...)
			assert.Equal(t, res.code, 2, res.stderr)
			assert.Assert(t, is.Contains(res.stderr, "error: "+typo), res.stderr)
			assert.Equal(t, readOutputs(t, outputs)["failure-reason"], "bad-input")
		})
	}
	t.Run("a display path and a wildcard match", func(t *testing.T) {
		dir := t.TempDir()
		copyDir(t, "testdata/deploy/assembly", filepath.Join(dir, "cdk.out"))
		res := runCLI(t, dir, nil, "diff", "--stacks=Stack*", "--app=cdk.out", "--cdkd-path=/nonexistent/cdkd")
		assert.Assert(t, !strings.Contains(res.stderr, "input stacks"), res.stderr)
	})
}

// drift matches the stacks against the state, not the code: a stack in
// the state but gone from the app still counts, and a typo is refused
// before cdkd runs.
func TestDriftStacksMatchTheState(t *testing.T) {
	bucket := randomBucket(t)
	aws := stateAWS(t, bucket, map[string]string{"StackC": "state-stackC.json", "Retired": "state-stackC.json"})

	w := newDriftWorkspace(t)
	w.useAWS(aws)
	stub := w.stub() // cdkd must not run
	res := w.run(map[string]string{"stacks": "StackC Retierd", "state-bucket": bucket})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Assert(t, is.Contains(res.stdout, `::error::input stacks: "Retierd": this pattern matches no stack of the state bucket `+bucket+` (it holds Retired, StackC)`), res.stdout)
	stub.AssertAllUsed(t)

	// A stack gone from the code but in the state is a stack to check.
	w = newDriftWorkspace(t)
	w.useAWS(aws)
	w.stub(detectStack(t, "", 0, "Retired", "--state-bucket", bucket))
	res = w.run(map[string]string{"stacks": "Retired", "state-bucket": bucket})
	assert.Assert(t, !strings.Contains(res.stdout, "input stacks"), res.stdout)
}

// Without a listing of the state (a local run reads no AWS), cdkd's
// report says which stacks the state holds: a pattern it did not report
// matched nothing there.
func TestLocalDriftStacksMatchTheReport(t *testing.T) {
	dir := t.TempDir()
	inv := detect(t, "drifted-stackC.json", 1)
	inv.Args = []string{"drift", "StackC", "Stak", "--json"}
	_, env := cliStub(t, inv)
	outputs := filepath.Join(dir, "outputs.json")
	res := runCLI(t, dir, env, "drift", "--stacks=StackC Stak", "--outputs-file="+outputs)
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, `error: input stacks: "Stak": this pattern matches no stack of cdkd drift's report (it holds StackC)`), res.stderr)
	assert.Equal(t, readOutputs(t, outputs)["failure-reason"], "bad-input")
}

// An empty cdk.out (a synth step that wrote nothing, or wrote elsewhere)
// is the app input's fault, as a manifest with no templates is: cdkd
// would fail with "manifest.json: ENOENT" (cdkd-failed, exit 3).
func TestEmptyAssemblyFolderIsABadApp(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "cdk.out"), 0o755))
	outputs := filepath.Join(dir, "outputs.json")
	res := runCLI(t, dir, nil, "diff", "--all", "--app=cdk.out", "--cdkd-path=/nonexistent/cdkd", "--outputs-file="+outputs)
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, `error: input app: "cdk.out" (in working-directory "`+dir+`") is a directory with no manifest.json: expected the cloud assembly a synth step writes (such as `+"`npx cdk synth -o cdk.out`"+`), or an app command`), res.stderr)
	assert.Equal(t, readOutputs(t, outputs)["failure-reason"], "bad-input")
}

// A refusal before the inputs are even read (an unknown flag) still
// writes failure-reason to --outputs-file, in either order of the flags.
func TestEarlyRefusalWritesFailureReason(t *testing.T) {
	for _, args := range [][]string{
		{"diff", "--no-such-flag", "--outputs-file=outputs.json"},
		{"diff", "--outputs-file", "outputs.json", "--no-such-flag"},
		{"no-such-command", "--outputs-file=outputs.json"},
	} {
		dir := t.TempDir()
		res := runCLI(t, dir, nil, args...)
		assert.Equal(t, res.code, 2, res.stderr)
		assert.Equal(t, readOutputs(t, filepath.Join(dir, "outputs.json"))["failure-reason"], "bad-input", "%v", args)
	}
}

// A shell cannot export INPUT_FROM-JSON: the spelling it can is read too,
// the runner's wins when both say different things, and a name that is no
// input is warned of.
func TestShellSpelledInputs(t *testing.T) {
	diff := abs(t, "../../testdata/fixtures/diff-v2.json")
	asm := abs(t, "../../testdata/fixtures/assembly-v2")

	res := runCLI(t, t.TempDir(), []string{"INPUT_FROM_JSON=" + diff, "INPUT_APP=" + asm, "INPUT_STACKS=StackB"})
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "<b>StackB</b>"), res.stdout)
	assert.Assert(t, !strings.Contains(res.stdout, "<b>StackA</b>"), res.stdout)
	assert.Assert(t, !strings.Contains(res.stderr, "INPUT_"), res.stderr)

	res = runCLI(t, t.TempDir(), []string{"INPUT_FROM-JSON=" + diff, "INPUT_FROM_JSON=/nonexistent.json", "INPUT_APP=" + asm, "INPUT_STAKCS=StackB"})
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "warning: INPUT_FROM-JSON and INPUT_FROM_JSON are both set, to different values: input from-json takes INPUT_FROM-JSON's (the runner's spelling)"), res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "warning: INPUT_STAKCS names no input of this action, so it does nothing"), res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "<b>StackA</b>"), "stacks was not read from INPUT_STAKCS")
}

func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	var out map[string]string
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, path)), &out))
	return out
}

// An empty github-token (a misspelt secret) on a pull request leaves no
// review: the warning says that the gated deploy will refuse the change,
// as comment: off with check-run: false does.
func TestEmptyTokenSaysTheDeployWillRefuse(t *testing.T) {
	w := newWorkspace(t)
	delete(w.vars, "INPUT_GITHUB-TOKEN")
	delete(w.vars, "GITHUB_TOKEN")
	res := w.run(map[string]string{
		"from-json": abs(t, "../../testdata/fixtures/diff-v2.json"), "app": abs(t, "../../testdata/fixtures/assembly-v2"),
		"github-token": ""})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::github-token is empty: the report goes to the job summary only; this diff leaves no reviewed change set (no comment, no check run), so a later deploy with require-reviewed-diff: true will refuse this change (no-reviewed-diff)"), res.stdout)
	assert.Equal(t, len(w.gh.Comments(owner, repo, prNum)), 0)
}

// GitHub's secondary rate limit asks to wait minutes: a wait past
// timeout-minutes is not taken, and the failure says so instead of
// GitHub's bare message. A 413 says what it means.
func TestGitHubLimitsSayWhatTheyMean(t *testing.T) {
	diff := map[string]string{"from-json": abs(t, "../../testdata/fixtures/diff-v2.json"), "app": abs(t, "../../testdata/fixtures/assembly-v2"), "timeout-minutes": "1"}
	t.Run("secondary rate limit", func(t *testing.T) {
		w := newWorkspace(t)
		w.gh.FailNext(1000, 403, map[string]string{"Retry-After": "300"}, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`)
		res := w.run(diff)
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "api-failed")
		assert.Assert(t, is.Contains(res.stdout, "GitHub's secondary rate limit: the request gave up after waiting 0s as GitHub asked: GitHub asked to wait 5m0s more, past the 1m0s a request may wait on rate limits (timeout-minutes, or 10m0s when it is 0)"), res.stdout)
	})
	t.Run("413", func(t *testing.T) {
		w := newWorkspace(t)
		w.gh.FailNext(1000, 413, nil, "")
		res := w.run(diff)
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Assert(t, is.Contains(res.stdout, "GitHub answered 413 Payload Too Large: it refused the request's body"), res.stdout)
		assert.Assert(t, !strings.Contains(res.stdout, "413  []"), res.stdout)
	})
}

// No state bucket in a workflow (none named, cdkd's default not found) is
// said once, not once by the bucket lookup and again by discovery.
func TestMissingBucketIsOneWarning(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"from-json": abs(t, "../../testdata/fixtures/diff-v2.json"), "app": abs(t, "../../testdata/fixtures/assembly-v2")})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, strings.Count(res.stdout, "no state bucket is"), 1, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::no state bucket is named (state-bucket, CDKD_STATE_BUCKET, cdk.json's context.cdkd.stateBucket), and cdkd's default for the account could not be used"), res.stdout)

	// Locally without --resolve-secrets the notice says nothing was read.
	res2 := runCLI(t, t.TempDir(), nil, "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"), "--app="+abs(t, "../../testdata/fixtures/assembly-v2"))
	assert.Equal(t, res2.code, 0, res2.stderr)
	assert.Assert(t, !strings.Contains(res2.stderr, "no state bucket"), res2.stderr)
	assert.Assert(t, is.Contains(res2.stderr, "notice: cdkd's output is not redacted against its state"), res2.stderr)
}

// A local deploy --dry-run knows no commit and trusts no check run: it
// names no empty SHA, and says nothing of what trusting github-actions'
// check runs means.
func TestLocalDryRunSaysOnlyWhatApplies(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/deploy/assembly", filepath.Join(dir, "cdk.out"))
	_, env := cliStub(t, gateDiff(t, "testdata/deploy/diff-safe.json"))
	res := runCLI(t, dir, env, "deploy", "--all", "--app=cdk.out", "--dry-run")
	assert.Equal(t, res.code, 1, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "No pull request was found for this commit (a local run reads no pull request), so there is no reviewed diff to compare with"), res.stdout)
	assert.Assert(t, !strings.Contains(res.stdout, "for commit ("), res.stdout)
	assert.Assert(t, !strings.Contains(res.stdout+res.stderr, "trusted-app"), res.stdout)
}

// With an app command there is no list before cdkd synthesizes: the
// stacks are checked once it did, against the stacks its diff names (no
// cdk.out here), and a typo is refused before anything is posted.
func TestStacksWithAnAppCommandAreCheckedAfterTheSynth(t *testing.T) {
	w := newWorkspace(t)
	stub := w.stub(cdkdtest.Invocation{Args: []string{"diff", "StackA", "NoSuchStak", "--json", "--recursive", "--app", "npx cdk synth"},
		Env: map[string]string{"CDKD_NO_LIVE": "1"}, StdoutFile: abs(t, "testdata/deploy/diff-safe.json")})
	res := w.run(map[string]string{"stacks": "StackA NoSuchStak", "app": "npx cdk synth"})
	stub.AssertAllUsed(t)
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Assert(t, is.Contains(res.stdout, `::error::input stacks: "NoSuchStak": this pattern matches no stack of cdkd's diff (it holds StackA, StackB)`), res.stdout)
	assert.Equal(t, len(w.gh.Comments(owner, repo, prNum)), 0, "bad input posts nothing")
}

// The gated deploy's diff checks the stacks the same way: a typo is
// refused before anything is deployed.
func TestDeployWithAnAppCommandRefusesATypoBeforeDeploying(t *testing.T) {
	dir := t.TempDir()
	stub, env := cliStub(t, cdkdtest.Invocation{Args: []string{"diff", "StackA", "NoSuchStak", "--json", "--recursive", "--app", "npx cdk synth"},
		Env: map[string]string{"CDKD_NO_LIVE": "1"}, StdoutFile: abs(t, "testdata/deploy/diff-safe.json")})
	outputs := filepath.Join(dir, "outputs.json")
	res := runCLI(t, dir, env, "deploy", "--stacks=StackA NoSuchStak", "--app=npx cdk synth", "--require-reviewed-diff=false", "--yes", "--outputs-file="+outputs)
	stub.AssertAllUsed(t) // no cdkd deploy
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, is.Contains(res.stdout+res.stderr, `input stacks: "NoSuchStak": this pattern matches no stack of cdkd's diff (it holds StackA, StackB)`), res.stdout+res.stderr)
	assert.Equal(t, readOutputs(t, outputs)["failure-reason"], "bad-input")
	assert.Equal(t, readOutputs(t, outputs)["deployed"], "false")
}
