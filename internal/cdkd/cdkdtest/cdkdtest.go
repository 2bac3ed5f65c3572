// Package cdkdtest gives end-to-end tests a fake cdkd: the cdkdstub program,
// built once per test process, answering from a scenario the test writes.
//
//	stub := cdkdtest.New(t, cdkdtest.Invocation{Args: []string{"diff", "--all", "--json"}, StdoutFile: abs("testdata/diff.json")})
//	r := &cdkd.Runner{Path: stub.Path, Env: stub.Env()}
//	... run the code under test ...
//	stub.AssertAllUsed(t)
package cdkdtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdstub/scenario"
)

// Scenario types, re-exported so tests need one import.
type (
	Invocation = scenario.Invocation
	Line       = scenario.Line
	Sigint     = scenario.Sigint
	Call       = scenario.Call
)

const stubPackage = "github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdstub"

// build caches the stub binary for the whole test process.
var build struct {
	once sync.Once
	path string
	err  error
}

// BuildStub compiles cdkdstub once per test process and returns the path of
// the binary, named "cdkd". The binary lives in a temporary directory that
// outlives the test that built it, so every test of the process can use it.
func BuildStub(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "cdkdstub-")
		if err != nil {
			build.err = fmt.Errorf("make stub directory: %w", err)
			return
		}
		// go test puts its own $GOROOT/bin first on PATH.
		gobin, err := exec.LookPath("go")
		if err != nil {
			build.err = fmt.Errorf("find the go command to build the cdkd stand-in: %w", err)
			return
		}
		out := filepath.Join(dir, "cdkd")
		cmd := exec.Command(gobin, "build", "-o", out, stubPackage)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build %s: %w\n%s", stubPackage, err, msg)
			return
		}
		build.path = out
	})
	if build.err != nil {
		t.Fatalf("build cdkd stub: %v", build.err)
	}
	return build.path
}

// RemoveStub deletes the stub binary built by BuildStub, if any. A test
// package that builds the stub calls it from TestMain after m.Run, so no
// stand-in binary outlives the tests.
func RemoveStub() {
	if build.path != "" {
		_ = os.RemoveAll(filepath.Dir(build.path))
	}
}

// WriteScenario writes invocations as dir's scenario.json.
func WriteScenario(t testing.TB, dir string, invs []Invocation) {
	t.Helper()
	if err := scenario.Write(dir, invs); err != nil {
		t.Fatalf("write cdkd stub scenario: %v", err)
	}
}

// Stub is a built stub with its own scenario and log.
type Stub struct {
	// Path is the stub binary: pass it as the cdkd path.
	Path string
	// Dir is the scenario directory; relative stdoutFile/stderrFile paths
	// are read from here.
	Dir string
	// Log is the invocation log.
	Log string
}

// New builds the stub (once) and gives this test a scenario of its own.
func New(t testing.TB, invs ...Invocation) *Stub {
	t.Helper()
	s := &Stub{Path: BuildStub(t), Dir: t.TempDir()}
	s.Log = filepath.Join(s.Dir, "calls.jsonl")
	WriteScenario(t, s.Dir, invs)
	return s
}

// Env is the environment the stub needs; add it to the runner's Env.
func (s *Stub) Env() []string {
	return []string{scenario.EnvScenario + "=" + s.Dir, scenario.EnvLog + "=" + s.Log}
}

// Calls returns what ran so far, in order.
func (s *Stub) Calls(t testing.TB) []Call {
	t.Helper()
	calls, err := scenario.ReadLog(s.Log)
	if err != nil {
		t.Fatalf("read cdkd stub log: %v", err)
	}
	return calls
}

// AssertAllUsed fails the test when an expected (non-repeating) invocation
// never ran or when an invocation matched nothing: a test proves both what
// was called and that nothing else was.
func (s *Stub) AssertAllUsed(t testing.TB) {
	t.Helper()
	invs, err := scenario.Load(s.Dir)
	if err != nil {
		t.Fatalf("load cdkd stub scenario: %v", err)
	}
	used, err := scenario.ReadUsed(scenario.StatePath(s.Dir, s.Log))
	if err != nil {
		t.Fatalf("read cdkd stub state: %v", err)
	}
	for _, i := range scenario.Unused(invs, used) {
		t.Errorf("cdkd stub: expected invocation #%d %s never ran", i, invs[i].Describe())
	}
	for _, c := range s.Calls(t) {
		if c.Matched < 0 && !c.Default {
			t.Errorf("cdkd stub: unexpected invocation %q", c.Args)
		}
	}
}
