package main

import (
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
	"time"

	"gotest.tools/v3/assert"
)

// The built binary, for the tests where a process of the action is the
// point: signals the runner sends on cancellation (SIGINT/SIGTERM, which
// main turns into a cancelled context forwarded to cdkd), peak memory as
// the kernel counts it (rusage), exec.LookPath's PATH, build-time stamps
// and package initialisation. Everything else runs in-process (run).

// e2eVersion is the version the test binary is stamped with.
const e2eVersion = "1.2.3-e2e"

var binary struct {
	once sync.Once
	path string
	err  error
}

// actionBinary builds cdkd-action once per test process, with the
// cdkdactione2e tag (the cheap Argon2id parameters the in-process runs get
// through app.Deps.FingerprintParams, e2eFingerprintParams) and stamped
// with e2eVersion as a release is stamped with its own.
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
		out, err := exec.Command(gobin, "build", "-tags", "cdkdactione2e", "-ldflags", "-X main.version="+e2eVersion, "-o", binary.path, ".").CombinedOutput()
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

// runBinary executes one step as a process of the built binary, in the
// workspace directory: for a test that measures the process (maxRSSKiB).
// Its channels are checked for leaks as run's are.
func (w *workspace) runBinary(inputs map[string]string, extraEnv ...string) result {
	w.t.Helper()
	p := w.start(inputs, extraEnv...)
	return p.wait(w.t, 10*time.Minute)
}

// process is a step started in the background, for signalling it.
type process struct {
	w        *workspace
	step     *step
	cmd      *exec.Cmd
	out      *syncBuffer
	done     chan error
	finished bool
}

// start runs a step as a process without waiting: the test can signal it.
func (w *workspace) start(inputs map[string]string, extraEnv ...string) *process {
	w.t.Helper()
	s := w.newStep(inputs, extraEnv)
	p := &process{w: w, step: s, out: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(actionBinary(w.t))
	p.cmd.Env, p.cmd.Dir = s.environ(), w.dir
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	assert.NilError(w.t, p.cmd.Start())
	go func() { p.done <- p.cmd.Wait() }()
	w.t.Cleanup(func() {
		if !p.finished {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitFor waits until the step has printed s.
func (p *process) waitFor(t *testing.T, s string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(p.out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the step never printed %q; it printed:\n%s", s, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wait waits for the step to exit, failing the test if it takes longer
// than limit.
func (p *process) wait(t *testing.T, limit time.Duration) result {
	t.Helper()
	var err error
	select {
	case err = <-p.done:
		p.finished = true
	case <-time.After(limit):
		t.Fatalf("the step did not exit within %s; it printed:\n%s", limit, p.out.String())
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run cdkd-action: %v", err)
	}
	res := p.w.finish(p.step, p.out.String(), code)
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.maxRSSKiB = ru.Maxrss
	}
	return res
}
