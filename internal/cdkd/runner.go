package cdkd

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Defaults for Runner fields left zero.
const (
	DefaultPath      = "cdkd"
	DefaultKillGrace = 8 * time.Second
	DefaultTailLines = 20
)

// ErrNotFound is wrapped by Run when the cdkd binary cannot be found.
var ErrNotFound = errors.New("cdkd not found")

// ErrTimeout is wrapped by Run when cdkd ran longer than Runner.Timeout and
// was stopped. It is not a cancellation: the job itself is still running.
var ErrTimeout = errors.New("timed out")

// VersionTimeout bounds `cdkd --version` whatever Runner.Timeout says: it
// answers at once, so a longer wait is a hung binary, not a slow command.
const VersionTimeout = 30 * time.Second

// Runner starts cdkd processes. The zero value runs "cdkd" from PATH in the
// current directory with the current environment.
type Runner struct {
	// Path is the cdkd binary: a path, or a name looked up in PATH.
	Path string
	// Dir is the working directory ("" means the current one).
	Dir string
	// EnvBase replaces os.Environ() as the inherited environment when non-nil.
	EnvBase []string
	// Env is added to the environment. CDKD_NO_LIVE=1 is always added last:
	// cdkd's live renderer redraws lines, which a CI log cannot show.
	Env []string
	// Stderr receives cdkd's stderr as it arrives, one Write per complete
	// line (newline included), so a line-based redactor never sees half a
	// secret. The caller wraps it with redaction.
	Stderr io.Writer
	// Stdout, when set, receives a live copy of stdout the same way (deploy's
	// human text). Stdout is always captured in Result as well.
	Stdout io.Writer
	// StdoutTail, when positive, bounds what Result.Stdout keeps of a text
	// stdout (deploy's): the lines its report reads (summaries, outputs,
	// progress, lock and error lines) and the last StdoutTail bytes of the
	// rest. Zero keeps all of it, as JSON needs.
	StdoutTail int
	// KeepANSI passes escape sequences through to Stderr and Stdout. By
	// default they are stripped: a colour code in the middle of a value would
	// hide it from a redactor matching the plain text.
	KeepANSI bool
	// VersionTimeout bounds `cdkd --version` (zero: the VersionTimeout
	// constant), and never beyond Timeout.
	VersionTimeout time.Duration
	// KillGrace is how long cdkd gets after SIGINT (sent to its process
	// group as soon as the context is done) to release its lock and exit,
	// before SIGKILL to the group (see stopper).
	KillGrace time.Duration
	// TailLines is how many non-empty stderr lines Result keeps.
	TailLines int
	// Redact hides secrets in text. The stderr tail is redacted whole
	// (the last tailWindow bytes of stderr) before it is cut to TailLines:
	// cut first, a secret's encoding wrapped across lines would lose its
	// start and no longer be recognised. nil: the caller redacts the tail.
	Redact func(string) string
	// Timeout bounds each run (timeout-minutes); 0 means no bound of its
	// own. When it runs out cdkd is stopped as on cancellation (SIGINT,
	// then SIGKILL after KillGrace) and Run returns an *Error wrapping
	// ErrTimeout, with the Result filled in.
	Timeout time.Duration
}

// Result is what one cdkd process did. A non-zero exit is a result, not an
// error: each command gives its exit codes a meaning (see the Classify
// functions).
type Result struct {
	// Args are the arguments cdkd was given (without the binary).
	Args []string
	// Stdout is everything cdkd printed on stdout, as printed (with
	// Runner.StdoutTail: what the report needs of it, and its end).
	Stdout []byte
	// StderrTail holds the last non-empty stderr lines, ANSI-stripped and
	// redacted with Runner.Redact before they were cut.
	StderrTail []string
	// ExitCode is cdkd's exit status; -1 when it was killed by a signal or
	// never ran.
	ExitCode int
	// Signal names the signal that ended cdkd ("SIGKILL", "SIGSEGV"), or
	// is empty when cdkd exited by itself.
	Signal    string
	Duration  time.Duration
	Cancelled bool
	// TimedOut is a run stopped because Runner.Timeout ran out.
	TimedOut bool
	// Interrupted reports that cdkd was sent SIGINT (cancellation or
	// timeout); Killed that it did not exit within KillGrace and was
	// killed. A killed cdkd had no chance to release its state lock.
	Interrupted bool
	Killed      bool
	// Limit is the Timeout that applied, for messages.
	Limit time.Duration
	// Grace is the grace period cdkd had between SIGINT and SIGKILL.
	Grace time.Duration
}

// ExitText says how cdkd ended, for messages: "exit 2", or "killed by
// SIGKILL" when a signal ended it, never "exit -1".
func (r Result) ExitText() string { return exitText(r.ExitCode, r.Signal) }

func exitText(code int, signal string) string {
	switch {
	case signal != "":
		return "killed by " + signal
	case code < 0:
		return "did not exit normally"
	}
	return fmt.Sprintf("exit %d", code)
}

// Run starts cdkd with args and waits for it. It returns an error only when
// cdkd could not be started, the context was cancelled, or Timeout ran out
// (an *Error wrapping ErrTimeout); in the last two cases the Result is still
// filled in (cdkd's exit code or signal, its last words), so the report can
// say whether it released its lock (see LockState).
func (r *Runner) Run(ctx context.Context, args ...string) (Result, error) {
	res := Result{Args: append([]string(nil), args...), ExitCode: -1}
	name := commandName(args)
	path, err := r.lookPath()
	if err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		res.Cancelled = true
		return res, fmt.Errorf("run cdkd %s: %w", name, err)
	}
	parent := ctx
	limit := r.Timeout
	if v := cmp.Or(r.VersionTimeout, VersionTimeout); isVersion(args) && (limit <= 0 || limit > v) {
		limit = v
	}
	res.Limit = limit
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}

	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = r.Dir
	cmd.Env = r.environ()
	stop := &stopper{grace: r.KillGrace}
	if stop.grace <= 0 {
		stop.grace = DefaultKillGrace
	}
	res.Grace = stop.grace
	stop.attach(cmd)

	var mu sync.Mutex // one live writer may serve both streams
	forward := func(w io.Writer, line string) {
		if w == nil {
			return
		}
		if !r.KeepANSI {
			line = StripANSI(line)
		}
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(w, line+"\n") // the live log is best effort
	}

	var stdout bytes.Buffer
	var keep *stdoutKeeper
	outLines := &lineWriter{emit: func(line string) {
		if keep != nil {
			keep.add(line)
		}
		forward(r.Stdout, line)
	}}
	switch {
	case r.StdoutTail > 0:
		// Text, not JSON: kept line by line, bounded.
		keep = &stdoutKeeper{tail: r.StdoutTail}
		cmd.Stdout = outLines
	case r.Stdout != nil:
		cmd.Stdout = io.MultiWriter(&stdout, outLines)
	default:
		cmd.Stdout = &stdout
	}
	tail := tailBuffer{max: r.TailLines}
	if tail.max <= 0 {
		tail.max = DefaultTailLines
	}
	errLines := &lineWriter{emit: func(line string) {
		tail.add(StripANSI(line))
		forward(r.Stderr, line)
	}}
	cmd.Stderr = errLines

	start := time.Now()
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			res.Cancelled = true
			return res, fmt.Errorf("run cdkd %s: %w", name, ctx.Err())
		}
		return res, fmt.Errorf("start cdkd %s: %w", name, err)
	}
	waitErr := cmd.Wait()
	stop.exited()
	res.Duration = time.Since(start)
	outLines.flush()
	errLines.flush()
	res.Stdout = stdout.Bytes()
	if keep != nil {
		res.Stdout = keep.bytes()
	}
	res.StderrTail = tail.cut(r.Redact)
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
		res.Signal = signalOf(cmd.ProcessState)
	}
	// The stopper (or exec, as a backstop) kills a process still running
	// the grace period after SIGINT.
	res.Interrupted = stop.interrupted.Load()
	res.Killed = stop.killed.Load() || (res.Interrupted && res.Signal == "SIGKILL")
	switch {
	case parent.Err() != nil:
		res.Cancelled = true
		return res, fmt.Errorf("run cdkd %s: cancelled: %w", name, parent.Err())
	case ctx.Err() != nil:
		res.TimedOut = true
		return res, newError(res, crashReason(res), ErrTimeout)
	}
	if cmd.ProcessState == nil {
		return res, fmt.Errorf("wait for cdkd %s: %w", name, waitErr)
	}
	return res, nil
}

// Version runs `cdkd --version` and returns the version it prints, e.g.
// "0.284.40".
func (r *Runner) Version(ctx context.Context) (string, error) {
	res, err := r.Run(ctx, VersionArgs()...)
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", newError(res, LastErrorLine(res.StderrTail), nil)
	}
	var v string
	for _, l := range plainLines(res.Stdout) {
		if l = strings.TrimSpace(l); l != "" {
			v = l
		}
	}
	if v == "" {
		return "", newError(res, "cdkd printed no version", nil)
	}
	return strings.TrimPrefix(v, "v"), nil
}

// Available reports whether the cdkd binary can be found, so a wrong
// cdkd-path is bad input found before anything runs.
func (r *Runner) Available() error {
	_, err := r.lookPath()
	return err
}

func (r *Runner) lookPath() (string, error) {
	p := r.Path
	if p == "" {
		p = DefaultPath
	}
	found, err := exec.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("%w at %q: install @go-to-k/cdkd or set cdkd-path (%v)", ErrNotFound, p, err)
	}
	return found, nil
}

func (r *Runner) environ() []string {
	base := r.EnvBase
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+len(r.Env)+1)
	env = append(env, base...)
	env = append(env, r.Env...)
	// exec keeps the last value of a duplicated key, so this one wins.
	return append(env, "CDKD_NO_LIVE=1")
}

// signalOf names the signal that ended a process ("SIGKILL"), or "".
func signalOf(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return SignalName(ws.Signal())
}

// SignalName is a signal's conventional name: "SIGKILL", "SIGSEGV".
func SignalName(sig syscall.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return fmt.Sprintf("signal %d", int(sig))
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGSYS: "SIGSYS",
}

func isVersion(args []string) bool { return len(args) == 1 && args[0] == "--version" }

// commandName names a cdkd invocation for messages: "diff", "state show".
func commandName(args []string) string {
	if len(args) == 0 {
		return "(no command)"
	}
	if args[0] == "state" && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		return "state " + args[1]
	}
	return args[0]
}

// lineWriter turns a byte stream into complete lines. exec calls Write from
// one goroutine per stream, and flush runs after Wait, so it needs no lock.
//
// A line is held in memory until its newline, so a hostile or broken cdkd
// printing megabytes without one would cost as much: past maxLine bytes
// only the last lineTail are kept, and the line is emitted as a note saying
// how much was hidden, followed by that tail (its first, cut word dropped:
// it may be the end of a secret the redactor can no longer recognise).
type lineWriter struct {
	buf    []byte
	hidden int // bytes of the current line dropped from buf's front
	emit   func(line string)
}

const (
	// maxLine bounds the memory one unterminated line may hold.
	maxLine = 1 << 20
	// lineTail is what is kept of a longer line: its end usually says why.
	lineTail = 16 << 10
)

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLine {
		drop := len(w.buf) - lineTail
		w.hidden += drop
		w.buf = append(w.buf[:0:0], w.buf[drop:]...)
	}
	if len(w.buf) == 0 {
		w.buf = nil // let a large finished line be collected
	}
	return len(p), nil
}

func (w *lineWriter) flush() {
	if len(w.buf) > 0 || w.hidden > 0 {
		w.line(w.buf)
		w.buf = nil
	}
}

// line emits one complete line, with the note when part of it was hidden.
func (w *lineWriter) line(b []byte) {
	s := strings.TrimSuffix(string(b), "\r")
	if w.hidden > 0 {
		if i := strings.IndexAny(s, " \t"); i >= 0 {
			w.hidden += i
			s = s[i:]
		} else {
			w.hidden += len(s)
			s = ""
		}
		s = fmt.Sprintf("[cdkd-action: %d bytes of this line were hidden: it ran past %d bytes without a line break]%s", w.hidden, maxLine, s)
		w.hidden = 0
	}
	w.emit(s)
}

// tailWindow bounds the stderr kept for the tail, in bytes: the text the
// tail is cut from, after redaction.
const tailWindow = 256 << 10

// tailBuffer keeps the end of stderr: the last lines within tailWindow
// bytes, and always at least max non-empty ones.
type tailBuffer struct {
	max     int
	buf     []string
	size    int
	dropped bool // lines were dropped from the front
}

func (t *tailBuffer) add(line string) {
	t.buf = append(t.buf, line)
	t.size += len(line) + 1
	for len(t.buf) > t.max && t.size > tailWindow {
		t.size -= len(t.buf[0]) + 1
		t.buf[0] = ""
		t.buf = t.buf[1:]
		t.dropped = true
	}
}

// cut redacts the kept text whole, then cuts it to the last max non-empty
// lines, hiding an encoded block whose start was cut off.
func (t *tailBuffer) cut(redact func(string) string) []string {
	text := strings.Join(t.buf, "\n")
	if redact != nil {
		text = redact(text)
	}
	return secrets.LastLines(text, t.max, t.dropped)
}
