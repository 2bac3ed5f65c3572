package main

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/app"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// The end-to-end tests run the action as the runner does: INPUT_*
// variables, an event payload file, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// files, GITHUB_API_URL pointing at a fake GitHub, a cdkd stand-in as a
// child process and AWS emulated by kumo (aws_test.go). The action runs
// in-process through app.App, with the step's environment, directory and
// writers of its own, so the tests run in parallel without a process each;
// the few that need a process of the action (signals, peak memory, PATH,
// the build itself) use the built binary (binary_test.go). Every step's
// channels are searched for every secret the workspace knows of
// (leakcheck_test.go), whatever the test asserts besides.

const (
	headSHA = "1111111111111111111111111111111111111111"
	prNum   = 7
	owner   = githubtest.DefaultOwner
	repo    = githubtest.DefaultRepo
	token   = "ghs_test_token"
)

// e2eFingerprintParams are the Argon2id parameters of the action under
// test (app.Deps.FingerprintParams in-process, tag cdkdactione2e for the
// binary); a release uses fingerprint.DefaultParams. The tests run the
// action hundreds of times: at OWASP's parameters the hashing of every
// hidden value would be most of the suite's time.
var e2eFingerprintParams = fingerprint.Params{Algorithm: fingerprint.Algorithm, Version: 19, MemoryKiB: 64, Time: 1, Threads: 1, KeyLen: 32}

// workspace is one job's environment: a fake GitHub with the pull request
// seeded, and the files the runner hands a step.
type workspace struct {
	t    *testing.T
	dir  string
	gh   *githubtest.Server
	vars map[string]string
	// secrets are values the test declares secret: every step's channels
	// are checked for them, with the token, mask-values, mask-env and the
	// emulator's secrets (see knownSecrets).
	secrets []leakSecret
	// aws is the emulator the steps use, if any (useAWS).
	aws *awsEmulator
	// chance lists values the test makes secret that occur by chance in
	// public data the action must keep as it is (a commit SHA of 1s): the
	// test checks them itself, where they may not occur.
	chance []string
}

// testFingerprintKey is the fingerprint-key of a workspace without AWS
// (openssl rand -base64 32).
const testFingerprintKey = "Xw3nq8Hd0TfB6yR2kLp9sVz4aGm7uJc1eQo5iWt8NbY="

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	parallel(t)
	declareSources(t)
	dir := t.TempDir()
	gh := githubtest.New(t)
	gh.SetToken(token, githubtest.DefaultLogin)
	gh.AddPullRequest(githubtest.PR{Number: prNum, HeadSHA: headSHA, HeadRef: "rename-queue", BaseRef: "main", State: "open"})
	event, err := os.ReadFile("testdata/pull_request.json")
	if err != nil {
		t.Fatal(err)
	}
	eventPath := filepath.Join(dir, "event.json")
	writeFile(t, eventPath, string(event))
	w := &workspace{t: t, dir: dir, gh: gh, vars: map[string]string{
		"GITHUB_ACTIONS":            "true",
		"GITHUB_REPOSITORY":         owner + "/" + repo,
		"GITHUB_EVENT_NAME":         "pull_request",
		"GITHUB_EVENT_PATH":         eventPath,
		"GITHUB_SHA":                "9999999999999999999999999999999999999999",
		"GITHUB_RUN_ID":             "4242",
		"GITHUB_SERVER_URL":         gh.URL,
		"GITHUB_API_URL":            gh.APIURL(),
		"RUNNER_TEMP":               filepath.Join(dir, "runner-temp"),
		"INPUT_GITHUB-TOKEN":        token,
		"AWS_EC2_METADATA_DISABLED": "true",
		// The credentials step's aws-region, which every job that runs
		// cdkd has (cdkd refuses to run without a region).
		"AWS_REGION": "us-east-1",
		// A repository secret, as a workflow without a state bucket needs
		// for fingerprints: useAWS drops it, so that the AWS tests run on
		// the key the action keeps in the state bucket.
		"INPUT_FINGERPRINT-KEY": testFingerprintKey,
	}}
	if err := os.MkdirAll(w.vars["RUNNER_TEMP"], 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// parallel runs t alongside the other e2e tests: each has its own
// workspace, fake GitHub, cdkd stand-in and App, and much of their time is
// spent waiting on a child process, so running them one at a time left
// the machine idle. A test that builds two workspaces asks once.
func parallel(t *testing.T) {
	if _, again := parallelTests.LoadOrStore(t, true); !again {
		t.Parallel()
	}
}

var parallelTests sync.Map

// declareSources tells go test's result cache what the e2e tests depend on
// beyond the packages compiled into the test: the testdata the cdkd
// stand-in replays and the tree a binary test builds, read by other
// processes the cache cannot see. Stat-ing every file under the module
// makes any change a cache miss. Once per test process is enough.
func declareSources(t *testing.T) {
	t.Helper()
	sources.once.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			sources.err = err
			return
		}
		sources.err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			_, err = os.Stat(path)
			return err
		})
	})
	if sources.err != nil {
		t.Fatalf("list sources: %v", sources.err)
	}
}

var sources struct {
	once sync.Once
	err  error
}

// result is what one step left behind.
type result struct {
	stdout string
	code   int
	// outputs are the step's outputs as a later step of the job uses
	// them: the report-json path made absolute in the workspace.
	// rawOutputs are GITHUB_OUTPUT's values as written.
	outputs    map[string]string
	rawOutputs map[string]string
	summary    string
	// channels is every place the step wrote to, as a reader sees it
	// (see channels).
	channels []channel
	// maxRSSKiB is the step's peak resident memory (Linux: KiB); binary
	// runs only.
	maxRSSKiB int64
}

// step is one step's environment and the files the runner gives it.
type step struct {
	env     map[string]string
	outPath string
	sumPath string
	// before stamps the workspace's files, github holds what GitHub showed
	// and requests counts its requests, all before the step: its channels
	// are what it wrote.
	before   map[string]fileStamp
	github   map[channel]bool
	requests int
	// defaulted are the inputs the runner set to their default, the test
	// giving none (runnerEnv).
	defaulted []string
}

// newStep prepares a step: the workspace's variables, then the inputs,
// then extraEnv (NAME=value), later ones winning as in a process's
// environment, then what else the runner sets (runnerEnv).
func (w *workspace) newStep(inputs map[string]string, extraEnv []string) *step {
	w.t.Helper()
	s := &step{outPath: filepath.Join(w.t.TempDir(), "output"), sumPath: filepath.Join(w.t.TempDir(), "summary")}
	writeFile(w.t, s.outPath, "")
	writeFile(w.t, s.sumPath, "")
	s.env = map[string]string{"PATH": os.Getenv("PATH"), "HOME": w.dir, "GITHUB_OUTPUT": s.outPath, "GITHUB_STEP_SUMMARY": s.sumPath}
	maps.Copy(s.env, w.vars)
	for k, v := range inputs {
		s.env["INPUT_"+strings.ToUpper(k)] = v
	}
	for _, kv := range extraEnv {
		k, v, _ := strings.Cut(kv, "=")
		s.env[k] = v
	}
	s.defaulted = runnerEnv(w.t, s.env, w.dir, w.t.TempDir())
	s.before = snapshot(w.t, w.dir)
	s.github = map[channel]bool{}
	for _, c := range w.github() {
		s.github[c] = true
	}
	s.requests = len(w.gh.Requests())
	return s
}

// environ is the step's environment as NAME=value lines, sorted.
func (s *step) environ() []string {
	out := make([]string, 0, len(s.env))
	for _, k := range slices.Sorted(maps.Keys(s.env)) {
		out = append(out, k+"="+s.env[k])
	}
	return out
}

// run executes one step in-process with the given inputs (names as in
// action.yml) and extra environment, and checks every channel for leaks.
func (w *workspace) run(inputs map[string]string, extraEnv ...string) result {
	w.t.Helper()
	s := w.newStep(inputs, extraEnv)
	var log syncBuffer
	code := s.app(w.dir, &log, &log, nil).Run(context.Background())
	return w.finish(s, log.String(), int(code))
}

// runTogether runs one step per inputs at the same time, in-process, as
// two jobs of a workflow would.
func (w *workspace) runTogether(inputs ...map[string]string) []result {
	w.t.Helper()
	steps := make([]*step, len(inputs))
	logs := make([]syncBuffer, len(inputs))
	codes := make([]app.ExitCode, len(inputs))
	var wg sync.WaitGroup
	for i, in := range inputs {
		steps[i] = w.newStep(in, nil)
		a := steps[i].app(w.dir, &logs[i], &logs[i], nil)
		wg.Go(func() { codes[i] = a.Run(context.Background()) })
	}
	wg.Wait()
	out := make([]result, len(inputs))
	for i := range inputs {
		out[i] = w.finish(steps[i], logs[i].String(), int(codes[i]))
	}
	return out
}

// app is the action for step s, in directory dir, with its own writers
// and arguments: the step's environment is all it sees of the process's.
func (s *step) app(dir string, stdout, stderr io.Writer, args []string) *app.App {
	getenv := func(k string) string { return s.env[k] }
	return &app.App{
		Stdout:  stdout,
		Stderr:  stderr,
		Getenv:  getenv,
		Environ: s.environ,
		Args:    args,
		Dir:     dir,
		Deps:    stepDeps(dir, getenv, args),
	}
}

// finish reads what the step left behind and asserts that no secret the
// workspace knows of reached any channel.
func (w *workspace) finish(s *step, log string, code int) result {
	w.t.Helper()
	res := w.collect(s, log, code)
	assertNoLeak(w.t, res.channels, w.knownSecrets(s.env)...)
	assertQuietDefaults(w.t, log, s.defaulted)
	return res
}

// collect reads what step s left behind.
func (w *workspace) collect(s *step, log string, code int) result {
	w.t.Helper()
	res := result{stdout: log, code: code, rawOutputs: parseOutputs(w.t, readFile(w.t, s.outPath)), summary: readFile(w.t, s.sumPath)}
	res.outputs = maps.Clone(res.rawOutputs)
	// A later step runs in the workspace: a relative path it is given
	// names a file there, as the test reads it.
	if p := res.outputs["report-json"]; p != "" && !filepath.IsAbs(p) {
		res.outputs["report-json"] = filepath.Join(cmp.Or(s.env["GITHUB_WORKSPACE"], w.dir), p)
	}
	res.channels = w.channels(res, s)
	return res
}

// stub installs a cdkd stand-in answering the given invocations.
func (w *workspace) stub(invs ...cdkdtest.Invocation) *cdkdtest.Stub {
	w.t.Helper()
	s := cdkdtest.New(w.t, invs...)
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		w.vars[k] = v
	}
	w.vars["INPUT_CDKD-PATH"] = s.Path
	return s
}

// secret declares values that must reach no channel of any later step.
func (w *workspace) secret(values ...string) {
	for _, v := range values {
		w.declare(declared(v))
	}
}

// declare is secret with names for the failure messages.
func (w *workspace) declare(secrets ...leakSecret) {
	w.secrets = append(w.secrets, secrets...)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// parseOutputs reads GITHUB_OUTPUT the way the runner does: name<<DELIM,
// lines, DELIM.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name<<DELIM", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("GITHUB_OUTPUT: delimiter of %s never closes", name)
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// commentWrites counts the requests that created, edited or deleted a comment.
func commentWrites(gh *githubtest.Server) int {
	n := 0
	for _, r := range gh.Requests() {
		switch r.Operation {
		case githubtest.OpCreateIssueComment, githubtest.OpUpdateIssueComment, githubtest.OpDeleteIssueComment:
			n++
		}
	}
	return n
}
