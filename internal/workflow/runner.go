// Package workflow speaks the GitHub Actions runner protocol by hand: workflow
// commands on stdout (::warning::, ::add-mask::, ::stop-commands::) and the
// files the runner reads after the step ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY).
//
// It exists instead of go-githubactions because that library writes outputs
// with a fixed heredoc delimiter (a value can then define other outputs) and
// prints Infof text unescaped (a line of tool output can then run commands).
package workflow

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Runner writes workflow commands to the log and files the runner reads.
// It is safe for concurrent use: each command is written as one line with a
// single Write, so streamed output cannot split it.
type Runner struct {
	Out    io.Writer           // the step's stdout (the log)
	Getenv func(string) string // injected; GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, ...
	Rand   io.Reader           // for delimiters and tokens; crypto/rand when nil
	// Plain prints for a terminal instead of a runner: "warning: msg"
	// rather than ::warning::msg, and no stop-commands or groups.
	Plain bool
	// Redact, when set, is applied to a command's message and property
	// values before they are escaped: escaping ("%" as "%25", a line break
	// as "%0A") is a transformation that can hide a secret from a
	// redactor further down the stream.
	Redact func(string) string

	mu               sync.Mutex
	stopToken        string // the token the runner waits for; "" while commands run
	outputs          map[string]string
	summary          strings.Builder // local mode only
	summaryTruncated bool
}

// New returns a Runner writing commands to out. A nil getenv means an empty
// environment (local mode: no output or summary files).
func New(out io.Writer, getenv func(string) string) *Runner {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &Runner{Out: out, Getenv: getenv, Rand: rand.Reader}
}

// Prop is one annotation property (title, file, line, ...). Build it with
// Title, File, Line, EndLine, Col or EndColumn so the key is always one the
// runner knows.
type Prop struct {
	key, value string
}

// Title sets the annotation's title.
func Title(s string) Prop { return Prop{"title", s} }

// File points the annotation at a file, relative to the repository root.
func File(path string) Prop { return Prop{"file", path} }

// Line is the annotation's first line (1-based).
func Line(n int) Prop { return Prop{"line", strconv.Itoa(n)} }

// EndLine is the annotation's last line.
func EndLine(n int) Prop { return Prop{"endLine", strconv.Itoa(n)} }

// Col is the annotation's first column.
func Col(n int) Prop { return Prop{"col", strconv.Itoa(n)} }

// EndColumn is the annotation's last column.
func EndColumn(n int) Prop { return Prop{"endColumn", strconv.Itoa(n)} }

// Debug prints a message shown only when step debug logging is on.
func (r *Runner) Debug(msg string) { r.command("debug", msg) }

// Notice creates a notice annotation.
func (r *Runner) Notice(msg string, props ...Prop) { r.command("notice", msg, props...) }

// Warning creates a warning annotation.
func (r *Runner) Warning(msg string, props ...Prop) { r.command("warning", msg, props...) }

// Error creates an error annotation. It does not fail the step; the exit code does.
func (r *Runner) Error(msg string, props ...Prop) { r.command("error", msg, props...) }

// Group starts a collapsible group in the log; EndGroup ends it.
func (r *Runner) Group(title string) { r.command("group", title) }

// EndGroup ends the group started by Group.
func (r *Runner) EndGroup() { r.command("endgroup", "") }

// AddMask registers a secret with the runner so it is replaced by *** in the
// log from now on. The runner masks within one log line, so callers pass each
// value, and each line of a multi-line value, separately. Blank values are
// skipped: the runner rejects them, and masking whitespace would garble the log.
func (r *Runner) AddMask(value string) {
	if strings.TrimSpace(value) == "" {
		return
	}
	r.command("add-mask", value)
}

// Info prints a plain log line. A line the runner would read as a command
// (starting with "::" after leading spaces, or containing "##[" anywhere) is
// printed inside a stop-commands block, so the text is shown unchanged and
// never acted on. Untrusted bulk text is better printed inside StopCommands.
func (r *Runner) Info(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopToken != "" || !looksLikeCommand(msg) {
		r.writeLocked(msg)
		return
	}
	token := r.token()
	r.writeLocked("::stop-commands::" + token + "\n" + msg + "\n::" + token + "::")
}

// StopCommands prints ::stop-commands::TOKEN with a fresh random token and
// returns a function that prints ::TOKEN:: to resume. Between the two nothing
// printed is interpreted as a command (so AddMask, Warning, ... are inert too).
// Calling resume more than once prints it once. While a block is open the
// runner ignores a nested one, and so does the Runner's own bookkeeping.
func (r *Runner) StopCommands() (resume func()) {
	if r.Plain {
		return func() {}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	token := r.token()
	r.writeLocked("::stop-commands::" + token)
	if r.stopToken == "" {
		r.stopToken = token
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.writeLocked("::" + token + "::")
			if r.stopToken == token {
				r.stopToken = ""
			}
		})
	}
}

// command prints ::name props::data as one line.
func (r *Runner) command(name, data string, props ...Prop) {
	if r.Redact != nil {
		data = r.Redact(data)
		props = slices.Clone(props)
		for i := range props {
			props[i].value = r.Redact(props[i].value)
		}
	}
	if r.Plain {
		switch name {
		case "group":
			r.writeLine("== " + data)
		case "warning", "error", "notice":
			r.writeLine(name + ": " + data)
		}
		return
	}
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(name)
	for i, p := range props {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(p.key)
		b.WriteByte('=')
		b.WriteString(escapeProperty(p.value))
	}
	b.WriteString("::")
	b.WriteString(escapeData(data))
	r.writeLine(b.String())
}

func (r *Runner) writeLine(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writeLocked(s)
}

// writeLocked writes s and a newline in one Write; r.mu must be held.
func (r *Runner) writeLocked(s string) {
	// A log write that fails has nowhere better to be reported.
	_, _ = io.WriteString(r.Out, s+"\n")
}

// token returns 32 random hex digits. A failing injected Rand falls back to
// crypto/rand: a predictable stop token would let output resume commands.
func (r *Runner) token() string {
	t, err := r.randomHex()
	if err != nil {
		b := make([]byte, 16)
		_, _ = rand.Read(b) // never fails (Go 1.24+)
		t = hex.EncodeToString(b)
	}
	return t
}

func (r *Runner) randomHex() (string, error) {
	src := r.Rand
	if src == nil {
		src = rand.Reader
	}
	b := make([]byte, 16)
	if _, err := io.ReadFull(src, b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// The runner unescapes command data with %0D, %0A, %25 (in that order) and
// property values additionally with %3A and %2C; escaping % first makes the
// round trip exact.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

// looksLikeCommand reports whether any line of s could be parsed as a
// workflow command: the runner splits output at \r and \n, tries "::" after
// trimming leading whitespace, then the legacy "##[" anywhere in the line.
func looksLikeCommand(s string) bool {
	for _, line := range strings.FieldsFunc(s, func(c rune) bool { return c == '\r' || c == '\n' }) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			return true
		}
	}
	return false
}
