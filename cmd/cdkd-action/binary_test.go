package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
		// go test puts its own $GOROOT/bin first on PATH.
		gobin, err := exec.LookPath("go")
		if err != nil {
			binary.err = fmt.Errorf("find the go command to build cdkd-action: %w", err)
			return
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
// workspace directory, and measures its peak memory (maxRSSKiB). Its
// channels are checked for leaks as run's are.
func (w *workspace) runBinary(inputs map[string]string, extraEnv ...string) result {
	w.t.Helper()
	p := w.startProcess(true, inputs, extraEnv)
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
	// rssFile receives the step's peak memory from the launcher (measured
	// runs only).
	rssFile string
}

// start runs a step as a process without waiting: the test can signal it.
func (w *workspace) start(inputs map[string]string, extraEnv ...string) *process {
	w.t.Helper()
	return w.startProcess(false, inputs, extraEnv)
}

// startProcess starts a step; measured, through the launcher (see
// launchMeasured), which cannot pass signals on.
func (w *workspace) startProcess(measured bool, inputs map[string]string, extraEnv []string) *process {
	w.t.Helper()
	s := w.newStep(inputs, extraEnv)
	p := &process{w: w, step: s, out: &syncBuffer{}, done: make(chan error, 1)}
	env := s.processEnv(w.dir, nil)
	p.cmd = exec.Command(actionBinary(w.t))
	p.cmd.Env = env
	if measured {
		self, err := os.Executable()
		assert.NilError(w.t, err)
		p.rssFile = filepath.Join(w.t.TempDir(), "maxrss")
		p.cmd = exec.Command(self, actionBinary(w.t))
		p.cmd.Env = append(env, measureEnv+"="+p.rssFile)
	}
	p.cmd.Dir = w.dir
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

// measureEnv turns the test binary into a launcher (launchMeasured).
const measureEnv = "CDKD_E2E_MEASURE_RSS_TO"

// launchMeasured, called first thing in TestMain, makes the test binary a
// launcher when measureEnv names a file: it runs its arguments as a
// command, writes the command's peak resident memory (KiB) to that file and
// exits with the command's exit code. Linux counts into a process's peak
// the memory of the process whose address space it was exec'd from (Go
// starts a child with vfork), so a child of the test process, which runs
// the in-process steps, would report that process's peak as its own; a
// child of this small launcher reports its own.
func launchMeasured() (code int, launched bool) {
	out := os.Getenv(measureEnv)
	if out == "" || len(os.Args) < 2 {
		return 0, false
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, measureEnv+"=") })
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "launch %s: %v\n", os.Args[1], err)
		return 127, true
	}
	var maxrss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxrss = ru.Maxrss
	}
	if err := os.WriteFile(out, []byte(strconv.FormatInt(maxrss, 10)), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "write the peak memory to %s: %v\n", out, err)
		return 127, true
	}
	return cmd.ProcessState.ExitCode(), true
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
	if p.rssFile != "" {
		kib, err := strconv.ParseInt(readFile(t, p.rssFile), 10, 64)
		assert.NilError(t, err, "the launcher's peak memory")
		res.maxRSSKiB = kib
	}
	return res
}
