package cdkdtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
)

// recorder captures failures reported through testing.TB.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestAssertAllUsed(t *testing.T) {
	stub := New(t,
		Invocation{Args: []string{"diff", "--json"}, Stdout: "[]\n"},
		Invocation{Args: []string{"deploy", "-y"}},
	)
	run := func(args ...string) string {
		cmd := exec.Command(stub.Path, args...)
		cmd.Env = stub.Env()
		out, _ := cmd.Output()
		return string(out)
	}
	assert.Equal(t, run("diff", "--json"), "[]\n")
	assert.Equal(t, run("--version"), "0.284.40\n", "--version answers by default")
	run("drift")

	rec := &recorder{TB: t}
	stub.AssertAllUsed(rec)
	got := strings.Join(rec.errors, "\n")
	assert.Equal(t, len(rec.errors), 2, got)
	assert.Assert(t, strings.Contains(got, `expected invocation #1 ["deploy" "-y"] never ran`), got)
	assert.Assert(t, strings.Contains(got, `unexpected invocation ["drift"]`), got)
}

func TestBuildStubOnce(t *testing.T) {
	assert.Equal(t, BuildStub(t), BuildStub(t))
}

func TestRemoveStubDeletesTheBinary(t *testing.T) {
	path := BuildStub(t)
	RemoveStub()
	_, err := os.Stat(path)
	assert.Assert(t, os.IsNotExist(err), "the stand-in outlived RemoveStub")
	build.once, build.path, build.err = sync.Once{}, "", nil // later tests build it again
}
