package main

import (
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A newcomer's first mistakes are bad input, said in one sentence that
// names what to fix, before cdkd runs: `app: cdk.out` with no synth step
// (cdkd would say "/bin/sh: 1: cdk.out: not found") and no region (cdkd
// would say "Region is missing").
func TestMissingAssemblyIsABadApp(t *testing.T) {
	w := newWorkspace(t)
	stub := w.stub() // cdkd must not run
	res := w.run(map[string]string{"all": "true", "app": "cdk.out"})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Assert(t, is.Contains(res.stdout, `::error::input app: nothing exists at "cdk.out" (in working-directory "`+w.dir+`"): expected the cloud assembly a synth step writes before this one (such as `+"`npx cdk synth -o cdk.out`"+`), or an app command`), res.stdout)
	assert.Assert(t, res.summary != "", "the job summary is written")
	stub.AssertAllUsed(t)

	// A command is cdkd's to run.
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	res = w.run(map[string]string{"all": "true", "app": "cdk.out", "cdkd-path": "/nonexistent/cdkd"})
	assert.Assert(t, !strings.Contains(res.stdout, "input app:"), res.stdout)
}

func TestNoRegionIsRefusedBeforeCdkdRuns(t *testing.T) {
	t.Run("workflow", func(t *testing.T) {
		w := newDriftWorkspace(t)
		delete(w.vars, "AWS_REGION")
		stub := w.stub()
		res := w.run(map[string]string{"stacks": "StackC"})
		assert.Equal(t, res.code, 2, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "bad-input")
		assert.Assert(t, is.Contains(res.stdout, "::error::no AWS region is known, and cdkd needs one: set aws-region on the step that configures AWS credentials (aws-actions/configure-aws-credentials), or AWS_REGION in the job's env"), res.stdout)
		assert.Assert(t, res.summary != "", "the job summary is written")
		stub.AssertAllUsed(t)
	})
	t.Run("terminal", func(t *testing.T) {
		dir := t.TempDir()
		copyDir(t, "testdata/deploy/assembly", filepath.Join(dir, "cdk.out"))
		res := runCLI(t, dir, []string{"AWS_REGION="}, "diff", "--all", "--app=cdk.out", "--cdkd-path=/nonexistent/cdkd")
		assert.Equal(t, res.code, 2, res.stderr)
		assert.Assert(t, is.Contains(res.stderr, "no AWS region is known, and cdkd needs one: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in the AWS profile)"), res.stderr)
	})
	t.Run("a profile's region is a region", func(t *testing.T) {
		dir := t.TempDir()
		copyDir(t, "testdata/deploy/assembly", filepath.Join(dir, "cdk.out"))
		config := filepath.Join(dir, "aws-config")
		writeFile(t, config, "[profile ci]\nregion = eu-west-1\n")
		res := runCLI(t, dir, []string{"AWS_REGION=", "AWS_PROFILE=ci", "AWS_CONFIG_FILE=" + config}, "diff", "--all", "--app=cdk.out", "--cdkd-path=/nonexistent/cdkd")
		assert.Assert(t, !strings.Contains(res.stderr, "no AWS region"), res.stderr)
	})
	t.Run("a saved report needs none", func(t *testing.T) {
		res := runCLI(t, t.TempDir(), []string{"AWS_REGION="}, "--local", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"), "--app="+abs(t, "../../testdata/fixtures/assembly-v2"))
		assert.Equal(t, res.code, 0, res.stderr)
	})
}

// --stacks with --from-json renders only the stacks cdkd would have acted
// on, matched by cdkd's rule; each pattern that matches nothing is
// refused, named (cdkd would drop it when another one matches), and a pattern only display paths could match (a /)
// is refused with the reason: a saved report holds no display paths.
func TestSavedReportFollowsStacks(t *testing.T) {
	diff := "--from-json=" + abs(t, "../../testdata/fixtures/diff-v2.json")
	asm := "--app=" + abs(t, "../../testdata/fixtures/assembly-v2")

	res := runCLI(t, t.TempDir(), nil, "diff", diff, asm, "--stacks=StackB")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "<b>StackB</b>"))
	assert.Assert(t, !strings.Contains(res.stdout, "<b>StackA</b>"), "StackA is not selected:\n%s", res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "**Plan:** 0 to create, 1 to update, 0 to replace, 0 to delete"), "the totals are StackB's")

	res = runCLI(t, t.TempDir(), nil, "diff", diff, asm, "--stacks=Stack*")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "<b>StackA</b>"))
	assert.Assert(t, is.Contains(res.stdout, "<b>StackB</b>"))

	res = runCLI(t, t.TempDir(), nil, "diff", diff, asm, "--stacks=NoSuchStack")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.stdout, "", "no report")
	assert.Assert(t, is.Contains(res.stderr, "input stacks: with from-json "), res.stderr)
	assert.Assert(t, is.Contains(res.stderr, `"NoSuchStack": this pattern matches no stack of the saved report, which holds StackA, StackB`), res.stderr)

	// A typo beside a good name is refused too: cdkd would drop it, and
	// StackA would quietly go unreviewed.
	res = runCLI(t, t.TempDir(), nil, "diff", diff, asm, "--stacks=StackB NoSuchStak")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.stdout, "", "no report")
	assert.Assert(t, is.Contains(res.stderr, `input stacks: with from-json `), res.stderr)
	assert.Assert(t, is.Contains(res.stderr, `"NoSuchStak": this pattern matches no stack of the saved report`), res.stderr)

	res = runCLI(t, t.TempDir(), nil, "diff", diff, asm, "--stacks=Prod/StackA")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stderr, `"Prod/StackA": cdkd matches a pattern with a / against display paths (Stage/Stack), which a saved report does not hold`), res.stderr)

	// A saved drift too: only StackB's resources, and the exit code is
	// the one cdkd gives StackB alone (no drift there).
	drift := "--from-json=" + abs(t, "testdata/drift/drifted.json")
	res = runCLI(t, t.TempDir(), nil, "drift", drift, "--stacks=StackB")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "✅ **No drift:** `StackB` (us-east-1)"), res.stdout)
	assert.Assert(t, !strings.Contains(res.stdout, "StackA"), res.stdout)
	res = runCLI(t, t.TempDir(), nil, "drift", drift, "--stacks=StackZ")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stderr, `"StackZ": this pattern matches no stack of the saved report`), res.stderr)

	// A report JSON cdkd-action wrote is rendered whole: stacks is refused.
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	res = runCLI(t, dir, nil, "diff", diff, asm, "--report-json="+report)
	assert.Equal(t, res.code, 0, res.stderr)
	res = runCLI(t, dir, nil, "diff", "--from-json="+report, "--stacks=StackA")
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stderr, "is a report JSON cdkd-action wrote, rendered whole"), res.stderr)
}
