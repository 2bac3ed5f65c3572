package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/app"
)

// The command line's rough edges, each as a user meets it in a terminal.

// A file named on the command line that cannot be written is bad input,
// said before anything runs; a write that fails at the end fails too: the
// report was the one thing asked for.
func TestUnwritableFilesAreBadInput(t *testing.T) {
	diff := "--from-json=" + abs(t, "../../testdata/fixtures/diff-v2.json")
	dir := t.TempDir()
	for _, tc := range []struct{ name, flag, want string }{
		{"output in a missing directory", "--output=" + filepath.Join(dir, "missing", "r.md"), "--output " + filepath.Join(dir, "missing", "r.md") + " cannot be written"},
		{"outputs-file that is a directory", "--outputs-file=" + dir, "--outputs-file " + dir + " cannot be written: it is a directory"},
		{"report-json in a missing directory", "--report-json=/nonexistent/r.json", "--report-json /nonexistent/r.json cannot be written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(t, dir, nil, "diff", diff, tc.flag)
			assert.Equal(t, res.code, 2, res.stderr)
			assert.Assert(t, is.Contains(res.stderr, tc.want))
			assert.Equal(t, res.stdout, "")
		})
	}
	// /dev/full passes every check and fails the write itself.
	if _, err := os.Stat("/dev/full"); err == nil {
		res := runCLI(t, dir, nil, "diff", diff, "--output=/dev/full")
		assert.Equal(t, res.code, 2, res.stderr)
		assert.Assert(t, is.Contains(res.stderr, "write the report to --output /dev/full"))
		res = runCLI(t, dir, nil, "diff", diff, "--outputs-file=/dev/full")
		assert.Equal(t, res.code, 2, res.stderr)
		assert.Assert(t, is.Contains(res.stderr, "write the outputs to --outputs-file /dev/full"))
	}
}

// Each command's --help lists the inputs and flags that command reads,
// with the defaults that apply where it runs.
func TestCommandHelpListsItsOwnInputs(t *testing.T) {
	global := runCLI(t, t.TempDir(), nil, "--help")
	assert.Equal(t, global.code, 0, global.stderr)
	for _, tc := range []struct {
		cmd          string
		has, hasNot  []string
		usageCommand string
	}{
		{"deploy", []string{"  --require-reviewed-diff (", "  --timeout-minutes (", "\n  --yes\n", "  --from-json ("}, []string{"  --issue-labels (", "  --fail-on-changes (", "  --command ("}, "cdkd-action deploy"},
		{"drift", []string{"  --issue-labels (", "  --drift-resolution (", "  --stacks ("}, []string{"  --require-reviewed-diff (", "\n  --yes\n", "\n  --dry-run\n", "  --comment ("}, "cdkd-action drift"},
		{"diff", []string{"  --comment (", "  --fail-on-changes (", "  --from-json ("}, []string{"  --issue-labels (", "  --require-reviewed-diff (", "\n  --yes\n"}, "cdkd-action diff"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			res := runCLI(t, t.TempDir(), nil, tc.cmd, "--help")
			assert.Equal(t, res.code, 0, res.stderr)
			assert.Assert(t, is.Contains(res.stdout, tc.usageCommand))
			for _, s := range tc.has {
				assert.Assert(t, is.Contains(res.stdout, s))
			}
			for _, s := range tc.hasNot {
				assert.Assert(t, !strings.Contains(res.stdout, s), "%s --help lists %s", tc.cmd, s)
				assert.Assert(t, is.Contains(global.stdout, s), "the global help still lists %s", s)
			}
			assert.Assert(t, len(res.stdout) < len(global.stdout))
		})
	}
}

// The help shows the default that applies: resolve-secrets is off in a
// local run and on in a runner.
func TestHelpShowsTheDefaultThatApplies(t *testing.T) {
	local := runCLI(t, t.TempDir(), nil, "--help")
	assert.Assert(t, is.Contains(local.stdout, "--resolve-secrets (default: false)"))
	assert.Assert(t, is.Contains(local.stdout, "defaults as in a local run"))
	runner := runCLI(t, t.TempDir(), []string{"GITHUB_ACTIONS=true"}, "diff", "--help")
	assert.Assert(t, is.Contains(runner.stdout, "--resolve-secrets (default: true)"))
	assert.Assert(t, is.Contains(runner.stdout, "defaults as in a runner"))
}

func TestUnknownCommandNamesEveryCommand(t *testing.T) {
	res := runCLI(t, t.TempDir(), nil, "plna")
	assert.Equal(t, res.code, 2)
	var names []string
	for _, c := range app.Commands().Names() {
		names = append(names, string(c))
	}
	for _, n := range names {
		assert.Assert(t, is.Contains(res.stderr, n))
	}
	assert.Assert(t, is.Contains(res.stderr, `got "plna"`))
}

// deploy reads from-json (to render a saved deploy report again), so it
// does not warn that it ignores the file and then refuse it.
func TestDeployFromJSONSaysOneThing(t *testing.T) {
	res := runCLI(t, t.TempDir(), nil, "deploy", "--dry-run", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"))
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, !strings.Contains(res.stderr, "ignores it"), res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "input from-json: deploy always runs cdkd"))
}

// A saved diff given to drift (or a drift to diff) is bad input, exit 2,
// not a drift that could not be checked.
func TestWrongSavedJSONIsBadInput(t *testing.T) {
	res := runCLI(t, t.TempDir(), nil, "drift", "--all", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"))
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "input from-json: expected cdkd drift --json output"))
	assert.Equal(t, res.stdout, "", "bad input posts no report")

	res = runCLI(t, t.TempDir(), nil, "diff", "--all", "--from-json="+abs(t, "testdata/drift/drifted.json"))
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "input from-json: expected cdkd diff --json output"))
}

// A go-install build has no stamp; its version comes from the module's
// build info. A build from a checkout says dev.
func TestVersionFromBuildInfo(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: v}}, true }
	}
	assert.Equal(t, releaseVersion("1.2.3", info("v9.9.9")), "1.2.3", "a stamp wins")
	assert.Equal(t, releaseVersion("dev", info("v1.4.0")), "1.4.0")
	assert.Equal(t, releaseVersion("dev", info("(devel)")), "dev")
	assert.Equal(t, releaseVersion("dev", func() (*debug.BuildInfo, bool) { return nil, false }), "dev")
}

// A local run leaves no folder behind in $TMPDIR; --report-json keeps the
// report JSON where the user says.
func TestLocalRunLeavesNothingBehind(t *testing.T) {
	_, env := cliStub(t, diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	dir := t.TempDir()
	tmp := t.TempDir()
	res := runCLIBinary(t, actionBinary(t), dir, append(env, "TMPDIR="+tmp), "diff", "--all")
	assert.Equal(t, res.code, 0, res.stderr)
	left, err := os.ReadDir(tmp)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(left, 0), "a local run left %v in TMPDIR", left)
	assert.Assert(t, !strings.Contains(res.stderr, "Report JSON:"), "no report JSON is kept, so none is named")

	report, outputs := filepath.Join(dir, "report.json"), filepath.Join(dir, "outputs.json")
	res = runCLI(t, dir, nil, "diff", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"), "--report-json", report, "--outputs-file", outputs)
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(readFile(t, report), `"kind":"diff"`))
	var got map[string]string
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, outputs)), &got))
	assert.Equal(t, got["report-json"], report)
}

// GITHUB_ACTIONS=true without the files every runner gives a step is not
// a runner: the report would go nowhere, so the run says so and stops.
func TestNotARunnerWithoutItsFiles(t *testing.T) {
	res := runCLI(t, t.TempDir(), []string{"GITHUB_ACTIONS=true"}, "diff", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"))
	assert.Equal(t, res.code, 2, res.stdout+res.stderr)
	all := res.stdout + res.stderr
	assert.Assert(t, is.Contains(all, "GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are not set"))
	assert.Assert(t, is.Contains(all, "pass --local"))
	// --local prints the report here.
	res = runCLI(t, t.TempDir(), []string{"GITHUB_ACTIONS=true"}, "diff", "--local", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"))
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, strings.HasPrefix(res.stdout, "### cdkd diff"))
}

// A saved diff is decoded while the cloud assembly loads: an assembly that
// cannot be read still fails the run as bad input naming app, with no
// report, and the diff decoded meanwhile is dropped.
func TestFromJSONWithABrokenAssembly(t *testing.T) {
	dir := t.TempDir()
	asm := filepath.Join(dir, "cdk.out")
	assert.NilError(t, os.Mkdir(asm, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(asm, "manifest.json"), []byte("{"), 0o644))
	res := runCLI(t, dir, nil, "diff", "--all", "--app="+asm, "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"))
	assert.Equal(t, res.code, 2, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "input app: "+asm+" looks like a cloud assembly but could not be read"))
	assert.Equal(t, res.stdout, "", "bad input posts no report")
}
