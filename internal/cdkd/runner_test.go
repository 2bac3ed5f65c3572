package cdkd

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// hangGuard bounds a wait so a broken test fails instead of hanging. It is
// not a timing assertion: on a loaded machine everything here finishes in far
// less.
const hangGuard = 60 * time.Second

// lines records live writes and checks each one is exactly one line.
type lines struct {
	t  *testing.T
	mu sync.Mutex
	ls []string
	ch chan string
}

func newLines(t *testing.T) *lines { return &lines{t: t, ch: make(chan string, 100)} }

func (l *lines) Write(p []byte) (int, error) {
	s := string(p)
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		l.t.Errorf("live write is not one line: %q", s)
	}
	s = strings.TrimSuffix(s, "\n")
	l.mu.Lock()
	l.ls = append(l.ls, s)
	l.mu.Unlock()
	select {
	case l.ch <- s:
	default:
	}
	return len(p), nil
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ls...)
}

// waitFor waits until a live line containing want arrives.
func (l *lines) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(hangGuard)
	for {
		select {
		case s := <-l.ch:
			if strings.Contains(s, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no live line containing %q; got %q", want, l.all())
		}
	}
}

func stubRunner(stub *cdkdtest.Stub, extraEnv ...string) *Runner {
	return &Runner{
		Path:    stub.Path,
		EnvBase: []string{"HOME=" + os.TempDir()},
		Env:     append(stub.Env(), extraEnv...),
	}
}

func TestRunDiffThroughStub(t *testing.T) {
	args, err := DiffArgs(Common{All: true, App: "cdk.out", StateBucket: "bkt"})
	assert.NilError(t, err)
	stub := cdkdtest.New(t, cdkdtest.Invocation{
		Args:       args,
		Env:        map[string]string{"CDKD_NO_LIVE": "1", "AWS_REGION": "us-east-1"},
		EnvUnset:   []string{"PATH"},
		StdoutFile: samplePath(t, "16-diff-v2-json.stdout"),
		Stderr:     "\x1b[33mwarning: emulator\x1b[0m\n",
	})
	live := newLines(t)
	r := stubRunner(stub, "AWS_REGION=us-east-1", "CDKD_NO_LIVE=0")
	r.Stderr = live
	r.Dir = t.TempDir()

	res, err := r.Run(context.Background(), args...)
	assert.NilError(t, err)
	assert.Equal(t, res.ExitCode, 0, "stderr: %q", res.StderrTail)
	want, err := os.ReadFile(samplePath(t, "16-diff-v2-json.stdout"))
	assert.NilError(t, err)
	assert.Check(t, bytes.Equal(res.Stdout, want))
	assert.DeepEqual(t, res.StderrTail, []string{"warning: emulator"})
	assert.DeepEqual(t, live.all(), []string{"warning: emulator"})
	assert.DeepEqual(t, res.Args, args)

	d, err := ClassifyDiff(res)
	assert.NilError(t, err)
	assert.Equal(t, len(d.Stacks), 2)

	calls := stub.Calls(t)
	assert.Equal(t, len(calls), 1)
	assert.DeepEqual(t, calls[0].Args, args)
	assert.Equal(t, calls[0].Env["CDKD_NO_LIVE"], "1", "CDKD_NO_LIVE=1 wins over the caller's value")
	wantDir, _ := filepath.EvalSymlinks(r.Dir)
	gotDir, _ := filepath.EvalSymlinks(calls[0].Dir)
	assert.Equal(t, gotDir, wantDir)
	stub.AssertAllUsed(t)
}

func TestRunUnexpectedArgv(t *testing.T) {
	stub := cdkdtest.New(t, cdkdtest.Invocation{Args: []string{"diff", "--all", "--json"}})
	res, err := stubRunner(stub).Run(context.Background(), "drift", "--all", "--json")
	assert.NilError(t, err, "a non-zero exit is a result, not an error")
	assert.Equal(t, res.ExitCode, 99)
	assert.Check(t, is.Contains(strings.Join(res.StderrTail, "\n"), `cdkdstub: unexpected argv ["drift" "--all" "--json"]`))
	calls := stub.Calls(t)
	assert.Equal(t, len(calls), 1)
	assert.Equal(t, calls[0].Matched, -1)
}

func TestRunExitCodes(t *testing.T) {
	for _, code := range []int{0, 1, 2, 130} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			stub := cdkdtest.New(t, cdkdtest.Invocation{
				ArgsContain: []string{"deploy"},
				Stderr:      "\x1b[31mError: exit " + strconv.Itoa(code) + "\x1b[0m\n",
				Exit:        code,
			})
			res, err := stubRunner(stub).Run(context.Background(), "deploy", "--all", "-y")
			assert.NilError(t, err)
			assert.Equal(t, res.ExitCode, code)
			assert.Check(t, !res.Cancelled)
			assert.Equal(t, LastErrorLine(res.StderrTail), "Error: exit "+strconv.Itoa(code))
		})
	}
}

func TestRunStateful(t *testing.T) {
	locked := "Error: 1 node(s) failed:\n  - stack:A: Failed to acquire lock for stack 'A' (us-east-1) after 4 attempts. Locked by: other, operation: deploy, expires in: 1m0s.\n"
	args := []string{"deploy", "A", "-y"}
	stub := cdkdtest.New(t,
		cdkdtest.Invocation{Args: args, Stderr: locked, Exit: 1},
		cdkdtest.Invocation{Args: args, Stdout: "\nDeployment Summary:\n  Stack: A\n  Created: 1\n"},
	)
	r := stubRunner(stub)

	first, err := r.Run(context.Background(), args...)
	assert.NilError(t, err)
	run := ClassifyDeploy(first)
	assert.Check(t, run.Lock != nil && run.Lock.Owner == "other")

	second, err := r.Run(context.Background(), args...)
	assert.NilError(t, err)
	run = ClassifyDeploy(second)
	assert.Check(t, run.OK)
	assert.DeepEqual(t, run.Summaries, []StackSummary{{Stack: "A", Created: 1}})

	third, err := r.Run(context.Background(), args...)
	assert.NilError(t, err)
	assert.Equal(t, third.ExitCode, 99, "each invocation answers once")
	var matched []int
	for _, c := range stub.Calls(t) {
		matched = append(matched, c.Matched)
	}
	assert.DeepEqual(t, matched, []int{0, 1, -1})
}

func TestRunStreamsAndCancels(t *testing.T) {
	stub := cdkdtest.New(t, cdkdtest.Invocation{
		Args:        []string{"deploy", "StackA", "-y"},
		StderrLines: []cdkdtest.Line{{Text: "\x1b[36mDeploying stack:\x1b[0m StackA"}},
		DelayMs:     10 * 60 * 1000, // only SIGINT ends it
		OnSigint:    &cdkdtest.Sigint{Stderr: "Interrupted: releasing lock for StackA\nReleased lock for StackA\n", Exit: 130},
	})
	live := newLines(t)
	r := stubRunner(stub)
	r.Stderr = live
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.Run(ctx, "deploy", "StackA", "-y")
		done <- outcome{res, err}
	}()

	// The line arrives while cdkd is still running: streamed, not buffered.
	live.waitFor(t, "Deploying stack: StackA")
	select {
	case o := <-done:
		t.Fatalf("run finished before it was cancelled: %+v", o)
	default:
	}

	cancel()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(hangGuard):
		t.Fatal("run did not return after cancellation")
	}
	assert.Check(t, errors.Is(o.err, context.Canceled), "got %v", o.err)
	assert.Check(t, o.res.Cancelled)
	assert.Equal(t, o.res.ExitCode, 130, "SIGINT, not SIGKILL: cdkd got to release its lock")
	assert.Check(t, is.Contains(o.res.StderrTail, "Released lock for StackA"))
	assert.Check(t, is.Contains(live.all(), "Released lock for StackA"))
	run := ClassifyDeploy(o.res)
	assert.Check(t, run.Cancelled && !run.OK)
}

func TestRunKillsAfterGrace(t *testing.T) {
	stub := cdkdtest.New(t, cdkdtest.Invocation{
		ArgsContain: []string{"deploy"},
		StderrLines: []cdkdtest.Line{{Text: "ready"}},
		DelayMs:     10 * 60 * 1000,
		OnSigint:    &cdkdtest.Sigint{Ignore: true},
	})
	live := newLines(t)
	r := stubRunner(stub)
	r.Stderr = live
	r.KillGrace = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	done := make(chan Result, 1)
	go func() {
		res, _ := r.Run(ctx, "deploy", "--all", "-y")
		done <- res
	}()
	live.waitFor(t, "ready")
	cancel()
	select {
	case res := <-done:
		assert.Check(t, res.Cancelled)
		assert.Equal(t, res.ExitCode, -1, "killed by a signal")
	case <-time.After(hangGuard):
		t.Fatal("run did not return: SIGKILL after the grace period did not happen")
	}
}

func TestRunAlreadyCancelled(t *testing.T) {
	stub := cdkdtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := stubRunner(stub).Run(ctx, "diff", "--json")
	assert.Check(t, errors.Is(err, context.Canceled))
	assert.Check(t, res.Cancelled)
	assert.Equal(t, len(stub.Calls(t)), 0, "cdkd never started")
}

func TestRunMissingBinary(t *testing.T) {
	for _, path := range []string{filepath.Join(t.TempDir(), "cdkd"), "cdkd-definitely-not-installed"} {
		r := &Runner{Path: path, EnvBase: []string{"PATH=" + t.TempDir()}}
		_, err := r.Run(context.Background(), "--version")
		assert.Check(t, errors.Is(err, ErrNotFound), "got %v", err)
		assert.Check(t, is.ErrorContains(err, `cdkd not found at "`+path+`": install @go-to-k/cdkd or set cdkd-path`))
	}
}

func TestRunStdoutLiveCopy(t *testing.T) {
	stub := cdkdtest.New(t, cdkdtest.Invocation{
		Args:       []string{"deploy", "--all", "-y"},
		StdoutFile: samplePath(t, "02-deploy-all.stdout"),
		StderrFile: samplePath(t, "02-deploy-all.stderr"),
	})
	out, errs := newLines(t), newLines(t)
	r := stubRunner(stub)
	r.Stdout, r.Stderr = out, errs
	res, err := r.Run(context.Background(), "deploy", "--all", "-y")
	assert.NilError(t, err)

	raw, err := os.ReadFile(samplePath(t, "02-deploy-all.stdout"))
	assert.NilError(t, err)
	assert.Check(t, bytes.Equal(res.Stdout, raw), "stdout is captured as printed")
	plain, err := os.ReadFile(samplePath(t, "02-deploy-all.stdout.txt"))
	assert.NilError(t, err)
	assert.Equal(t, strings.Join(out.all(), "\n")+"\n", string(plain), "the live copy is ANSI-stripped, line by line")
	assert.Equal(t, len(errs.all()), 8)

	run := ClassifyDeploy(res)
	assert.Check(t, run.OK)
	assert.Equal(t, len(run.Summaries), 2)
}

func TestRunKeepANSI(t *testing.T) {
	stub := cdkdtest.New(t, cdkdtest.Invocation{ArgsContain: []string{"diff"}, Stderr: "\x1b[31mred\x1b[0m\nno newline at end"})
	live := newLines(t)
	r := stubRunner(stub)
	r.Stderr, r.KeepANSI = live, true
	res, err := r.Run(context.Background(), "diff")
	assert.NilError(t, err)
	assert.DeepEqual(t, live.all(), []string{"\x1b[31mred\x1b[0m", "no newline at end"})
	assert.DeepEqual(t, res.StderrTail, []string{"red", "no newline at end"}) // the tail is always stripped
}

func TestRunTailIsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString("line " + string(rune('A'+i%26)) + "\n\n")
	}
	stub := cdkdtest.New(t, cdkdtest.Invocation{ArgsContain: []string{"diff"}, Stderr: b.String() + "Error: last\n", Exit: 1})
	r := stubRunner(stub)
	r.TailLines = 5
	res, err := r.Run(context.Background(), "diff")
	assert.NilError(t, err)
	assert.Equal(t, len(res.StderrTail), 5)
	assert.Equal(t, res.StderrTail[4], "Error: last")
}

func TestVersion(t *testing.T) {
	tests := []struct {
		name string
		invs []cdkdtest.Invocation
		want string
		err  string
	}{
		{name: "stub default", want: "0.284.40"},
		{name: "from the scenario", invs: []cdkdtest.Invocation{{Args: []string{"--version"}, Stdout: "\x1b[0mv0.300.1\n"}}, want: "0.300.1"},
		{name: "failure", invs: []cdkdtest.Invocation{{Args: []string{"--version"}, Stderr: "Error: broken install\n", Exit: 1}}, err: "cdkd --version failed (exit 1): Error: broken install"},
		{name: "silent", invs: []cdkdtest.Invocation{{Args: []string{"--version"}}}, err: "cdkd printed no version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stub := cdkdtest.New(t, tc.invs...)
			v, err := stubRunner(stub).Version(context.Background())
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, v, tc.want)
			stub.AssertAllUsed(t)
		})
	}
}

func TestRunTimeout(t *testing.T) {
	tests := []struct {
		name       string
		sigint     *cdkdtest.Sigint
		wantKilled bool
		wantExit   string
	}{
		{name: "cdkd stops on SIGINT", sigint: &cdkdtest.Sigint{Stderr: "Interrupted\n", Exit: 130}, wantExit: "exit 130"},
		{name: "cdkd ignores SIGINT and is killed", sigint: &cdkdtest.Sigint{Ignore: true}, wantKilled: true, wantExit: "killed by SIGKILL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stub := cdkdtest.New(t, cdkdtest.Invocation{ArgsContain: []string{"diff"}, DelayMs: 10 * 60 * 1000, OnSigint: tc.sigint})
			r := stubRunner(stub)
			r.Timeout = 300 * time.Millisecond
			r.KillGrace = 200 * time.Millisecond
			start := time.Now()
			res, err := r.Run(context.Background(), "diff", "--json")
			assert.Check(t, time.Since(start) < hangGuard)
			assert.Check(t, errors.Is(err, ErrTimeout), "got %v", err)
			assert.Check(t, !errors.Is(err, context.Canceled))
			assert.Check(t, res.TimedOut && !res.Cancelled)
			assert.Check(t, res.Interrupted)
			assert.Equal(t, res.Killed, tc.wantKilled)
			assert.Equal(t, res.ExitText(), tc.wantExit)
			_, cerr := ClassifyDiff(res)
			assert.Check(t, is.ErrorContains(cerr, "ran longer than 300ms"))
		})
	}
}

func TestRunNamesTheSignal(t *testing.T) {
	for _, sig := range []string{"SIGKILL", "SIGSEGV"} {
		t.Run(sig, func(t *testing.T) {
			stub := cdkdtest.New(t, cdkdtest.Invocation{ArgsContain: []string{"diff"}, Stderr: "working\n", Signal: sig})
			res, err := stubRunner(stub).Run(context.Background(), "diff", "--json")
			assert.NilError(t, err)
			assert.Equal(t, res.Signal, sig)
			assert.Check(t, !res.Interrupted && !res.Killed, "cdkd died by itself")
			_, cerr := ClassifyDiff(res)
			assert.Check(t, is.ErrorContains(cerr, "killed by "+sig))
			assert.Check(t, !strings.Contains(cerr.Error(), "-1"), "got %v", cerr)
			run := ClassifyDeploy(res)
			assert.Check(t, is.Contains(run.Reason, "killed by "+sig))
		})
	}
}

func TestVersionHasItsOwnBound(t *testing.T) {
	stub := cdkdtest.New(t, cdkdtest.Invocation{Args: []string{"--version"}, Stdout: "0.284.40\n", Exit: 0})
	r := stubRunner(stub)
	r.Timeout = time.Hour
	res, err := r.Run(context.Background(), VersionArgs()...)
	assert.NilError(t, err)
	assert.Equal(t, res.Limit, VersionTimeout, "--version is bounded more tightly than timeout-minutes")
	r.Timeout = time.Second
	res, err = r.Run(context.Background(), VersionArgs()...)
	assert.NilError(t, err)
	assert.Equal(t, res.Limit, time.Second, "a shorter timeout-minutes still applies")
	r.Timeout, r.VersionTimeout = time.Hour, 2*time.Minute
	res, err = r.Run(context.Background(), VersionArgs()...)
	assert.NilError(t, err)
	assert.Equal(t, res.Limit, 2*time.Minute, "the runner's own --version bound")
}

func TestLockState(t *testing.T) {
	deploy := []string{"deploy", "StackA", "-y"}
	targets := []Target{{Stack: "StackA", Region: "us-east-1"}}
	unlock := "`cdkd force-unlock StackA --stack-region us-east-1`"
	tests := []struct {
		name     string
		res      Result
		want     []string
		wantNot  []string
		wantNone bool
	}{
		{name: "ended by itself", res: Result{Args: deploy, ExitCode: 1}, wantNone: true},
		{name: "read-only command", res: Result{Args: []string{"diff", "--json"}, TimedOut: true, Interrupted: true, ExitCode: 130},
			want: []string{"takes no lock"}, wantNot: []string{"force-unlock"}},
		{name: "killed after the grace", res: Result{Args: deploy, TimedOut: true, Interrupted: true, Killed: true, Signal: "SIGKILL", ExitCode: -1},
			want: []string{"SIGKILL", "may still be held", unlock}, wantNot: []string{"released its lock", "exit -1"}},
		{name: "crashed", res: Result{Args: deploy, Signal: "SIGSEGV", ExitCode: -1},
			want: []string{"killed by SIGSEGV", "may still be held", unlock}},
		{name: "interrupted, said released", res: Result{Args: deploy, Cancelled: true, Interrupted: true, ExitCode: 130, StderrTail: []string{"Lock released for stack: StackA (us-east-1)"}},
			want: []string{"The job was cancelled", "cdkd said it released the lock of StackA."}, wantNot: []string{"force-unlock", "timeout"}},
		{name: "interrupted, silent", res: Result{Args: deploy, Cancelled: true, Interrupted: true, ExitCode: 130, StderrTail: []string{"Use --force-unlock to manually release the lock."}},
			want: []string{"did not say it released the lock of StackA", "may still be held", unlock}, wantNot: []string{"said it released"}},
		{name: "timed out, said it may not be released", res: Result{Args: deploy, TimedOut: true, Interrupted: true, ExitCode: 130, Limit: time.Minute,
			StderrTail: []string{"Force-quit: stack lock may not be released. If the next run reports a lock, run: cdkd force-unlock StackA --stack-region us-east-1"}},
			want:    []string{"ran longer than timeout-minutes (1m0s)", "cdkd said the lock of StackA may not be released", "may still be held", unlock},
			wantNot: []string{"said it released", "cancelled"}},
		{name: "drift revert takes the lock", res: Result{Args: []string{"drift", "--revert", "-y"}, TimedOut: true, Interrupted: true, Killed: true, Signal: "SIGKILL"},
			want: []string{"may still be held"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LockState(tc.res, targets)
			if tc.wantNone {
				assert.Equal(t, got, "")
				return
			}
			for _, w := range tc.want {
				assert.Check(t, is.Contains(got, w))
			}
			for _, w := range tc.wantNot {
				assert.Check(t, !strings.Contains(got, w), "%q contains %q", got, w)
			}
		})
	}
}

// A line that never ends holds at most maxLine bytes; it is emitted with a
// note saying how much was hidden, and its end, without the cut word.
// With two stacks, what cdkd said of each is said of each: one released,
// the other denied by a plural negation that names no stack.
func TestLockStatePerStack(t *testing.T) {
	targets := []Target{{Stack: "StackA", Region: "us-east-1"}, {Stack: "StackB", Region: "eu-west-1"}}
	res := Result{Args: []string{"deploy", "--all", "-y"}, Cancelled: true, Interrupted: true, ExitCode: 130,
		StderrTail: []string{"Lock released for stack: StackA (us-east-1)"}}
	got := LockState(res, targets)
	assert.Check(t, is.Contains(got, "cdkd said it released the lock of StackA."))
	assert.Check(t, is.Contains(got, "cdkd did not say it released the lock of StackB."))
	assert.Check(t, is.Contains(got, "The lock of StackB may still be held"))
	assert.Check(t, is.Contains(got, "`cdkd force-unlock StackB --stack-region eu-west-1`"))
	assert.Check(t, !strings.Contains(got, "force-unlock StackA"), got)

	res.StderrTail = append(res.StderrTail, "Force-quit: stack locks may not be released. If the next run reports a lock, run this for EACH stack it names: cdkd force-unlock <stackName> --stack-region <region>")
	got = LockState(res, targets)
	assert.Check(t, is.Contains(got, "cdkd said the lock of StackA may not be released."), "a later denial wins")
	assert.Check(t, is.Contains(got, "cdkd said the lock of StackB may not be released."))
	assert.Check(t, is.Contains(got, "Those locks may still be held"))

	// A statement naming no stack claims nothing when several ran.
	res.StderrTail = []string{"released the lock"}
	got = LockState(res, targets)
	assert.Check(t, !strings.Contains(got, "said it released"), got)
}

func TestLineWriterCapsALineWithoutNewline(t *testing.T) {
	var got []string
	w := &lineWriter{emit: func(l string) { got = append(got, l) }}
	_, _ = w.Write([]byte("first\nsecretpart-of-a-cut-word"))
	chunk := bytes.Repeat([]byte("y"), 64<<10)
	for range 80 { // 5 MiB
		_, _ = w.Write(chunk)
		if cap(w.buf) > 2*maxLine {
			t.Fatalf("the line buffer grew to %d bytes", cap(w.buf))
		}
	}
	_, _ = w.Write([]byte(" Error: the reason\nnext\n"))
	if len(got) != 3 || got[0] != "first" || got[2] != "next" {
		t.Fatalf("lines: %d, %q", len(got), got)
	}
	long := got[1]
	if !strings.HasPrefix(long, "[cdkd-action: ") || !strings.Contains(long, "bytes of this line were hidden") || !strings.HasSuffix(long, "] Error: the reason") {
		t.Fatalf("the long line is %q", long)
	}
	if strings.Contains(long, "yy") || strings.Contains(long, "secretpart") {
		t.Fatalf("the cut word or the hidden part shows: %.200q", long)
	}
}

// The tail is redacted whole, then cut: a long secret's base64, wrapped at
// 76 columns and longer than the tail, must not survive as the block's
// last lines (cut first, they are no longer recognised).
func TestRunTailRedactedBeforeCut(t *testing.T) {
	secret := strings.Repeat("s3cr3t-", 177)[:1237]
	set := secrets.NewSet()
	set.Add(secret, "test")
	enc := base64.StdEncoding.EncodeToString([]byte(secret))
	var b strings.Builder
	b.WriteString("Error: the value was rejected:\n")
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\nError: exit 1\n")
	stub := cdkdtest.New(t, cdkdtest.Invocation{ArgsContain: []string{"diff"}, Stderr: b.String(), Exit: 1})
	r := stubRunner(stub)
	r.Redact = set.Redact
	res, err := r.Run(context.Background(), "diff")
	assert.NilError(t, err)
	assert.Equal(t, res.StderrTail[len(res.StderrTail)-1], "Error: exit 1")
	full := base64.StdEncoding.EncodeToString([]byte(secret))
	for _, l := range res.StderrTail {
		if l = strings.TrimSpace(l); len(l) >= 8 {
			assert.Check(t, !strings.Contains(full, l), "a piece of the secret's base64 survives: %q", l)
		}
	}
	assert.Check(t, !strings.Contains(LastErrorLine(res.StderrTail), full[len(full)-20:]))
}

// A non-JSON stdout is quoted only as a whole line: cut before the caller
// redacts it, part of a secret would show.
func TestDecodeQuotesNoPartOfALine(t *testing.T) {
	secret := "N0Echo-Value-0123456789abcdefghij"
	line := strings.Repeat("x", 180) + secret + " tail"
	_, err := DecodeDiff([]byte(line + "\n[]"))
	assert.ErrorContains(t, err, "not quoted")
	assert.Check(t, !strings.Contains(err.Error(), secret[:8]), err.Error())
	_, err = DecodeDiff([]byte("debug: " + secret + "\n[]"))
	assert.ErrorContains(t, err, secret, "a short line is quoted whole, for the redactor to find")
}
