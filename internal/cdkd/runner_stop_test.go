package cdkd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A hung cdkd that ignores SIGINT, and has started a child that holds its
// output open (as the app's synth does), is killed with its child once the
// grace period has passed, and the report names the kill and the grace
// period, not merely a stop.
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := shellCdkd(t, "trap '' INT\nsleep 600 &\necho $! > "+pidFile+"\necho working >&2\nwait\n")

	r := &Runner{Path: script, Timeout: 300 * time.Millisecond, KillGrace: 200 * time.Millisecond}
	done := make(chan struct{})
	var res Result
	var err error
	go func() { res, err = r.Run(context.Background(), "diff", "--json"); close(done) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("run did not return")
	}
	assert.Check(t, errors.Is(err, ErrTimeout), "got %v", err)
	assert.Check(t, res.Killed && res.Interrupted)
	assert.Equal(t, res.Grace, 200*time.Millisecond)

	b, rerr := os.ReadFile(pidFile)
	assert.NilError(t, rerr)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	assert.Assert(t, pid > 0)
	gone := false
	for range 100 { // the kernel reaps the killed child at once; allow a moment
		if !alive(pid) {
			gone = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !gone {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	assert.Check(t, gone, "cdkd's child outlived the kill")

	_, cerr := ClassifyDiff(res)
	assert.Check(t, is.ErrorContains(cerr, "ran longer than 300ms; it did not exit within its 200ms grace period after SIGINT and was killed (SIGKILL)"))
	assert.Check(t, !strings.Contains(cerr.Error(), "was stopped"))
}

// alive reports whether pid runs: a zombie (killed, not yet reaped by an
// init that may never reap it) does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// shellCdkd is a cdkd stand-in written as a shell script (body follows the
// #! line), for what the stub cannot do: start children, print megabytes.
func shellCdkd(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cdkd")
	assert.NilError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}
