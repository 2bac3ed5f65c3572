package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/config"
)

// cliResult is one local run: stdout and stderr apart, as a terminal sees them.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs the action in-process as a user would in a terminal: no
// GITHUB_* at all, the arguments on the command line, dir as the working
// directory.
func runCLI(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	s := cliStep(t, dir, env)
	var stdout, stderr syncBuffer
	code := s.app(dir, &stdout, &stderr, args).Run(context.Background())
	return finishCLI(t, dir, s, stdout.String(), stderr.String(), int(code))
}

// runCLIBinary is runCLI with a built binary, for what only a process
// shows: its build-time stamp, and exec.LookPath on its own PATH.
func runCLIBinary(t *testing.T, bin, dir string, env []string, args ...string) cliResult {
	t.Helper()
	s := cliStep(t, dir, env)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = s.processEnv(dir, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run cdkd-action: %v", err)
	}
	return finishCLI(t, dir, s, stdout.String(), stderr.String(), code)
}

// cliStep is a terminal's environment: PATH, HOME and TMPDIR, then env.
func cliStep(t *testing.T, dir string, env []string) *step {
	t.Helper()
	parallel(t)
	declareSources(t)
	// A terminal that can run cdkd has a region (cdkd refuses to run without one).
	s := &step{env: map[string]string{"PATH": os.Getenv("PATH"), "HOME": dir, "TMPDIR": dir, "AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "us-east-1"}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		s.env[k] = v
	}
	s.before = snapshot(t, dir)
	return s
}

// finishCLI checks a local run's channels (stdout, stderr, the files it
// wrote, the report JSON) for the secrets its environment names. An
// in-process run writes the report JSON under the process's temporary
// folder: it is removed with the test.
func finishCLI(t *testing.T, dir string, s *step, stdout, stderr string, code int) cliResult {
	t.Helper()
	channels := []channel{{"stdout", stdout}, {"stderr", stderr}}
	files := written(t, dir, s.before)
	for _, l := range strings.Split(stderr, "\n") {
		if p, ok := strings.CutPrefix(l, "Report JSON: "); ok && !slices.Contains(files, p) {
			files = append(files, p)
			if folder := filepath.Dir(p); strings.HasPrefix(filepath.Base(folder), "cdkd-action-") && !strings.HasPrefix(folder, dir) {
				t.Cleanup(func() { _ = os.RemoveAll(folder) })
			}
		}
	}
	for _, p := range files {
		channels = append(channels, channel{"the file " + p, readFile(t, p)})
	}
	assertNoLeak(t, channels, envSecrets(s.env)...)
	return cliResult{stdout: stdout, stderr: stderr, code: code}
}

// cliStub is a cdkd stand-in whose scenario the test writes; its
// environment is returned for the run.
func cliStub(t *testing.T, invs ...cdkdtest.Invocation) (*cdkdtest.Stub, []string) {
	t.Helper()
	s := cdkdtest.New(t, invs...)
	return s, append(s.Env(), "INPUT_CDKD-PATH="+s.Path)
}

func TestHelpListsEveryInputWithItsDefault(t *testing.T) {
	res := runCLI(t, t.TempDir(), nil, "--help")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, res.stderr, "")
	specs, err := config.Specs()
	assert.NilError(t, err)
	for _, s := range specs {
		def := s.DefaultIn(true) // the defaults of a local run
		if def == "" {
			def = `""`
		}
		assert.Assert(t, is.Contains(res.stdout, "--"+s.Name+" (default: "+def+")"))
		first := strings.Fields(s.Description)[0]
		assert.Assert(t, is.Contains(res.stdout, first), "description of %s", s.Name)
	}
	for _, f := range []string{"--output FILE", "--outputs-file FILE", "--yes", "--dry-run", "--version", "--local"} {
		assert.Assert(t, is.Contains(res.stdout, f))
	}
	// help works as a first word too, in a directory where nothing else would.
	assert.Equal(t, runCLI(t, t.TempDir(), []string{"INPUT_WORKING-DIRECTORY=/nonexistent"}, "diff", "--help").code, 0)
}

func TestVersionIsStampedAtBuildTime(t *testing.T) {
	_, env := cliStub(t)
	res := runCLI(t, t.TempDir(), env, "--version")
	assert.Equal(t, res.code, 0, res.stderr)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	assert.Equal(t, lines[0], "cdkd-action dev", "an unstamped App says dev")
	assert.Assert(t, is.Len(lines, 2))
	assert.Assert(t, strings.HasPrefix(lines[1], "cdkd 0.284.40 at "), "the cdkd it would use: %q", lines[1])
	assert.Assert(t, is.Contains(lines[1], "the cdkd-path input names it"))

	// The binary the tests build is stamped as a release is (binary_test.go).
	res = runCLIBinary(t, actionBinary(t), t.TempDir(), env, "--version")
	assert.Assert(t, strings.HasPrefix(res.stdout, "cdkd-action "+e2eVersion+"\n"), res.stdout)
}

// stdout carries only the report; warnings, progress and cdkd's own
// stderr go to stderr, and the report JSON's path is said there.
func TestLocalStdoutIsOnlyTheReport(t *testing.T) {
	_, env := cliStub(t, diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	dir := t.TempDir()
	res := runCLI(t, dir, append(env, "INPUT_ISSUE=true"), "diff", "--all", "--report-json", filepath.Join(dir, "a.json"))
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, strings.HasPrefix(res.stdout, "### cdkd diff\n"), "Markdown from the first byte: %q", res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "QueueName"))
	for _, noise := range []string{"warning:", "Failed to resolve create-only", "Report JSON:", "Using cdkd"} {
		assert.Assert(t, !strings.Contains(res.stdout, noise), "%q on stdout", noise)
	}
	assert.Assert(t, is.Contains(res.stderr, "Failed to resolve create-only"), "cdkd's stderr")
	assert.Assert(t, is.Contains(res.stderr, "warning: input issue is set but diff ignores it: it applies to drift only"))
	assert.Assert(t, is.Contains(res.stderr, "Using cdkd 0.284.40 at "))
	assert.Assert(t, is.Contains(res.stdout, "cdkd 0.284.40 (cdkd-path)"), "the footer says which cdkd ran")
	path := reportPath(t, res.stderr)
	assert.Assert(t, is.Contains(readFile(t, path), `"kind":"diff"`))

}

func reportPath(t *testing.T, stderr string) string {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if p, ok := strings.CutPrefix(l, "Report JSON: "); ok {
			return p
		}
	}
	t.Fatalf("no report JSON path on stderr:\n%s", stderr)
	return ""
}

func TestOutputAndOutputsFile(t *testing.T) {
	dir := t.TempDir()
	report, outputs := filepath.Join(dir, "report.md"), filepath.Join(dir, "outputs.json")
	res := runCLI(t, dir, nil, "diff", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"), "--output="+report, "--outputs-file", outputs, "--report-json", filepath.Join(dir, "r.json"))
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, res.stdout, "", "the report went to --output")
	assert.Assert(t, is.Contains(readFile(t, report), "QueueName"))
	var got map[string]string
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, outputs)), &got))
	assert.Equal(t, got["has-changes"], "true")
	assert.Equal(t, got["failure-reason"], "")
	assert.Equal(t, got["report-json"], reportPath(t, res.stderr))
}

// With AWS configured, a local run calls AWS only when --resolve-secrets
// asks: the assembly references a Secrets Manager secret.
func TestLocalRunMakesNoAWSCallUnlessAsked(t *testing.T) {
	e := startAWS(t)
	aws := append(e.env(), "AWS_MAX_ATTEMPTS=1", "INPUT_STATE-BUCKET=state-bucket-"+unique(t))
	args := []string{"diff", "--all", "--from-json=" + abs(t, "../../testdata/fixtures/diff-v2.json"), "--app=" + abs(t, "../../testdata/cdkd-samples/assembly-v1")}

	res := runCLI(t, t.TempDir(), aws, args...)
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Equal(t, e.requests(), 0, "no request without --resolve-secrets")
	assert.Assert(t, is.Contains(res.stderr, "Pass --resolve-secrets to redact what the state holds"))
	drift := runCLI(t, t.TempDir(), aws, "drift", "--all", "--fail-on-drift=false",
		"--from-json="+abs(t, "testdata/drift/drifted.json"), "--app="+abs(t, "testdata/drift/assembly"))
	assert.Equal(t, drift.code, 0, drift.stderr)
	assert.Equal(t, e.requests(), 0, "drift reads no state without --resolve-secrets")

	res = runCLI(t, t.TempDir(), aws, append(args, "--resolve-secrets")...)
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, e.requests() > 0, "--resolve-secrets reads state and secrets")
}

func TestLocalDeployNeedsYesAndDryRunShowsTheGate(t *testing.T) {
	dir := t.TempDir()
	res := runCLI(t, dir, nil, "deploy", "--all")
	assert.Equal(t, res.code, 2)
	assert.Assert(t, is.Contains(res.stderr, "a local deploy changes AWS resources: pass --yes to deploy, or --dry-run"))
	assert.Equal(t, res.stdout, "")

	res = runCLI(t, dir, nil, "deploy", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"), "--yes")
	assert.Equal(t, res.code, 2)
	assert.Assert(t, is.Contains(res.stderr, "input from-json: deploy always runs cdkd"))

	// Locally there is no pull request to read: the gate refuses.
	_, env := cliStub(t, gateDiff(t, "testdata/deploy/diff-safe.json"))
	res = runCLI(t, dir, env, "deploy", "--all", "--dry-run")
	assert.Equal(t, res.code, 1, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "The gate would refuse"), res.stdout)

	// Without the review requirement it would deploy: the command is shown, not run.
	stub, env := cliStub(t, gateDiff(t, "testdata/deploy/diff-safe.json"))
	res = runCLI(t, dir, env, "deploy", "--all", "--dry-run", "--require-reviewed-diff=false")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "The gate would deploy"), res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "cdkd deploy StackA StackB --exclusively -y"), res.stdout)
	for _, c := range stub.Calls(t) {
		assert.Assert(t, c.Args[0] != "deploy", "a dry run deploys nothing: %q", c.Args)
	}
}

// A saved `cdkd drift --json` renders as the run that produced it would.
func TestDriftFromSavedJSON(t *testing.T) {
	dir := t.TempDir()
	res := runCLI(t, dir, nil, "drift", "--all", "--fail-on-drift=false", "--from-json="+abs(t, "testdata/drift/drifted.json"), "--app="+abs(t, "testdata/drift/assembly"))
	assert.Equal(t, res.code, 0, res.stderr)
	// go test ./cmd/cdkd-action -run TestDriftFromSavedJSON -update rewrites it.
	golden.Assert(t, res.stdout, "cli/drift-from-json.md")
}

func TestNodeModulesCdkdIsPreferred(t *testing.T) {
	s, env := cliStub(t, diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	dir := t.TempDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	assert.NilError(t, os.MkdirAll(bin, 0o755))
	assert.NilError(t, os.Symlink(s.Path, filepath.Join(bin, "cdkd")))
	env = env[:len(env)-1] // no cdkd-path
	res := runCLI(t, dir, env, "diff", "--all")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "the repository has its own cdkd in node_modules/.bin"))
	assert.Assert(t, is.Contains(res.stdout, "cdkd 0.284.40 (node&#95;modules)"))
}

// cdkd-version with no cdkd on PATH: npm (a stand-in here: the package is
// not on a registry reachable from the tests) installs it for this run, the
// log and the footer say so, and the install is removed afterwards.
func TestCdkdVersionInstalledWithNPM(t *testing.T) {
	s, env := cliStub(t, diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	env = env[:len(env)-1] // no cdkd-path
	bin := t.TempDir()
	log := filepath.Join(bin, "npm.log")
	npm := `#!/bin/sh
echo "$@" >> ` + log + `
while [ $# -gt 0 ]; do
  if [ "$1" = --prefix ]; then prefix="$2"; fi
  shift
done
mkdir -p "$prefix/node_modules/.bin" && ln -s ` + s.Path + ` "$prefix/node_modules/.bin/cdkd"
`
	assert.NilError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755))
	dir := t.TempDir()
	// A process: cdkd and npm are looked up on its own PATH.
	res := runCLIBinary(t, actionBinary(t), dir, append(env, "PATH="+bin+":/bin:/usr/bin", "INPUT_CDKD-VERSION=0.284.40"), "diff", "--all")
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stderr, "cdkd-version 0.284.40 is asked and no cdkd is on PATH: installed with npm for this run"))
	assert.Assert(t, is.Contains(res.stdout, "cdkd 0.284.40 (npm install)"))
	calls := strings.Fields(readFile(t, log))
	assert.Assert(t, is.Contains(calls, "@go-to-k/cdkd@0.284.40"))
	for i, c := range calls {
		if c == "--prefix" {
			_, err := os.Stat(calls[i+1])
			assert.Assert(t, os.IsNotExist(err), "the npm install folder %s outlived the run", calls[i+1])
		}
	}
}

// TestOwnPackagesInitCheaply: every run pays for package initialisation
// before it does anything, and the local render is held to jq's time. Our
// own packages compile their regular expressions on first use, not at
// start-up (internal/cdkd and internal/config took 1-3 ms and ~1,400
// allocations each).
func TestOwnPackagesInitCheaply(t *testing.T) {
	// A process: package initialisation happens once per process.
	res := runCLIBinary(t, actionBinary(t), t.TempDir(), []string{"GODEBUG=inittrace=1"}, "--help")
	assert.Equal(t, res.code, 0, res.stderr)
	seen := 0
	for _, line := range strings.Split(res.stderr, "\n") {
		// init github.com/cdkd-action/cdkd-action/internal/cdkd @20 ms, 0.03 ms clock, 1992 bytes, 32 allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/cdkd-action/") {
			continue
		}
		seen++
		allocs, err := strconv.Atoi(f[9])
		assert.NilError(t, err, line)
		assert.Check(t, allocs < 200, "%s allocates at start-up: %s", f[1], line)
	}
	assert.Check(t, seen > 0, "no init trace in:\n%s", res.stderr)
}
