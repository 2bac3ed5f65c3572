package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// The end-to-end tests run the compiled binary exactly as the runner does:
// INPUT_* variables, an event payload file, GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at a fake GitHub.

const (
	headSHA = "1111111111111111111111111111111111111111"
	prNum   = 7
	owner   = githubtest.DefaultOwner
	repo    = githubtest.DefaultRepo
	token   = "ghs_test_token"
)

// e2eFingerprintParams are the Argon2id parameters of the binary the tests
// build (tag cdkdactione2e); a release uses fingerprint.DefaultParams.
var e2eFingerprintParams = fingerprint.Params{Algorithm: fingerprint.Algorithm, Version: 19, MemoryKiB: 64, Time: 1, Threads: 1, KeyLen: 32}

var binary struct {
	once sync.Once
	path string
	err  error
}

// actionBinary builds cdkd-action once per test process.
func actionBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "cdkd-action-e2e-")
		if err != nil {
			binary.err = err
			return
		}
		gobin, err := exec.LookPath("go")
		if err != nil {
			gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		binary.path = filepath.Join(dir, "cdkd-action")
		// cdkdactione2e: cheap Argon2id parameters (see internal/secrets/fingerprint).
		out, err := exec.Command(gobin, "build", "-tags", "cdkdactione2e", "-o", binary.path, ".").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	declareSources(t)
	return binary.path
}

// declareSources tells go test's result cache what the e2e tests depend on.
// The cache keys a result on the test binary and the files the test reads;
// the action binary is built from the whole tree and only executed, which
// the cache cannot see, so without this a changed package could replay a
// stale pass. Stat-ing every source file makes any change a cache miss.
func declareSources(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		// Sources, and the testdata the cdkd stand-in replays (read by
		// another process, so the cache would not see it either).
		_, err = os.Stat(path)
		return err
	})
	if err != nil {
		t.Fatalf("list sources: %v", err)
	}
}

// workspace is one job's environment: a fake GitHub with the pull request
// seeded, and the files the runner hands a step.
type workspace struct {
	t    *testing.T
	dir  string
	gh   *githubtest.Server
	vars map[string]string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	parallel(t)
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
	}}
	if err := os.MkdirAll(w.vars["RUNNER_TEMP"], 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// parallel runs t alongside the other e2e tests: each has its own
// workspace, fake GitHub, cdkd stand-in and processes, and most of their
// time is spent waiting on a child process, so running them one at a time
// left the machine idle. A test that builds two workspaces asks once.
func parallel(t *testing.T) {
	if _, again := parallelTests.LoadOrStore(t, true); !again {
		t.Parallel()
	}
}

var parallelTests sync.Map

// result is what one step left behind.
type result struct {
	stdout  string
	code    int
	outputs map[string]string
	summary string
	// maxRSSKiB is the step's peak resident memory (Linux: KiB).
	maxRSSKiB int64
}

// run executes one step with the given inputs (names as in action.yml).
func (w *workspace) run(inputs map[string]string, extraEnv ...string) result {
	w.t.Helper()
	out := filepath.Join(w.t.TempDir(), "output")
	sum := filepath.Join(w.t.TempDir(), "summary")
	writeFile(w.t, out, "")
	writeFile(w.t, sum, "")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.dir, "GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + sum}
	for k, v := range w.vars {
		env = append(env, k+"="+v)
	}
	for k, v := range inputs {
		env = append(env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	env = append(env, extraEnv...)
	cmd := exec.Command(actionBinary(w.t))
	cmd.Env = env
	cmd.Dir = w.dir
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		w.t.Fatalf("run cdkd-action: %v", err)
	}
	res := result{stdout: stdout.String(), code: code, outputs: parseOutputs(w.t, readFile(w.t, out)), summary: readFile(w.t, sum)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.maxRSSKiB = ru.Maxrss
	}
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
