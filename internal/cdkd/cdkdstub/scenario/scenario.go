// Package scenario is the contract between tests and cdkdstub, the fake cdkd:
// which invocations a test expects, what each one answers, and the log of
// what actually ran.
package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Environment variables cdkdstub reads.
const (
	// EnvScenario names the scenario directory (holding FileName).
	EnvScenario = "CDKD_STUB_SCENARIO"
	// EnvLog names a file each invocation is appended to, one JSON line.
	EnvLog = "CDKD_STUB_LOG"
)

// FileName is the scenario file inside the scenario directory.
const FileName = "scenario.json"

// DefaultVersion is what `--version` answers when no invocation expects it.
const DefaultVersion = "0.284.40"

// ExitUnexpected is cdkdstub's exit code for an invocation the scenario does
// not expect, so a test fails visibly.
const ExitUnexpected = 99

// Invocation is one expected cdkd run and its answer.
type Invocation struct {
	// Args is the exact argv (without the binary). Empty means "not checked".
	Args []string `json:"args,omitempty"`
	// ArgsContain is a looser match: every element must appear in argv.
	ArgsContain []string `json:"argsContain,omitempty"`
	// Env lists required environment values.
	Env map[string]string `json:"env,omitempty"`
	// EnvUnset lists variables that must not be set.
	EnvUnset []string `json:"envUnset,omitempty"`
	// Repeat lets the invocation answer any number of times; otherwise it
	// answers once, and a second identical call moves to the next match.
	Repeat bool `json:"repeat,omitempty"`

	// Stdout and Stderr are printed first, inline or from a file (relative
	// to the scenario directory unless absolute).
	Stdout     string `json:"stdout,omitempty"`
	StdoutFile string `json:"stdoutFile,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
	StderrFile string `json:"stderrFile,omitempty"`
	// StderrLines are printed next, each after its own delay.
	StderrLines []Line `json:"stderrLines,omitempty"`
	// DelayMs is waited after all output, before exiting with Exit.
	DelayMs int `json:"delayMs,omitempty"`
	Exit    int `json:"exit"`
	// Signal, when set ("SIGKILL", "SIGSEGV", "SIGABRT"), ends the stub by
	// sending that signal to itself instead of exiting with Exit, as a
	// crashed or OOM-killed cdkd ends.
	Signal string `json:"signal,omitempty"`
	// OnSigint, when set, handles SIGINT (and SIGTERM); without it a signal
	// kills the stub as it would any program.
	OnSigint *Sigint `json:"onSigint,omitempty"`
}

// Line is one delayed line of output.
type Line struct {
	Text    string `json:"text"`
	DelayMs int    `json:"delayMs,omitempty"`
}

// Sigint is what the stub does on SIGINT: print, then exit with Exit — like
// cdkd releasing its lock. Ignore makes it keep going, to test SIGKILL.
type Sigint struct {
	Stdout  string `json:"stdout,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
	DelayMs int    `json:"delayMs,omitempty"`
	Exit    int    `json:"exit"`
	Ignore  bool   `json:"ignore,omitempty"`
}

// Call is one logged invocation.
type Call struct {
	Args []string          `json:"args"`
	Dir  string            `json:"dir"`
	Env  map[string]string `json:"env,omitempty"` // CDKD_* variables, stub's own excluded
	// Matched is the index of the invocation that answered, -1 for none.
	Matched int `json:"matched"`
	// Default marks `--version` answered with DefaultVersion: expected, not
	// matched.
	Default bool `json:"default,omitempty"`
}

// Load reads dir/scenario.json: a JSON list of invocations.
func Load(dir string) ([]Invocation, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	var invs []Invocation
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a typo in a scenario should fail, not be ignored
	if err := dec.Decode(&invs); err != nil {
		return nil, fmt.Errorf("decode scenario %s: %w", filepath.Join(dir, FileName), err)
	}
	return invs, nil
}

// Write stores invocations as dir/scenario.json.
func Write(dir string, invs []Invocation) error {
	b, err := json.MarshalIndent(invs, "", "  ")
	if err != nil {
		return fmt.Errorf("encode scenario: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write scenario: %w", err)
	}
	return nil
}

// Match reports whether the invocation accepts argv and the environment
// (lookup is os.LookupEnv in the stub), and if not, why.
func (inv Invocation) Match(args []string, lookup func(string) (string, bool)) (bool, string) {
	if len(inv.Args) > 0 && !slices.Equal(inv.Args, args) {
		return false, fmt.Sprintf("argv %q, want %q", args, inv.Args)
	}
	for _, a := range inv.ArgsContain {
		if !slices.Contains(args, a) {
			return false, fmt.Sprintf("argv %q lacks %q", args, a)
		}
	}
	for _, k := range sortedKeys(inv.Env) {
		if v, ok := lookup(k); !ok || v != inv.Env[k] {
			if !ok {
				return false, fmt.Sprintf("env %s is unset, want %q", k, inv.Env[k])
			}
			return false, fmt.Sprintf("env %s=%q, want %q", k, v, inv.Env[k])
		}
	}
	for _, k := range inv.EnvUnset {
		if _, ok := lookup(k); ok {
			return false, fmt.Sprintf("env %s is set, want unset", k)
		}
	}
	return true, ""
}

// Describe names the invocation for messages.
func (inv Invocation) Describe() string {
	switch {
	case len(inv.Args) > 0:
		return fmt.Sprintf("%q", inv.Args)
	case len(inv.ArgsContain) > 0:
		return fmt.Sprintf("argv containing %q", inv.ArgsContain)
	}
	return "any argv"
}

// Select picks the invocation that answers: the first one, in scenario
// order, that matches and is not used up. used holds the indices already
// answered. It returns -1 and the reasons when nothing matches.
func Select(invs []Invocation, used []int, args []string, lookup func(string) (string, bool)) (int, []string) {
	var why []string
	for i, inv := range invs {
		if !inv.Repeat && slices.Contains(used, i) {
			continue
		}
		ok, reason := inv.Match(args, lookup)
		if ok {
			return i, nil
		}
		why = append(why, fmt.Sprintf("#%d %s: %s", i, inv.Describe(), reason))
	}
	return -1, why
}

// Unused lists the non-repeating invocations that never answered.
func Unused(invs []Invocation, used []int) []int {
	var out []int
	for i, inv := range invs {
		if !inv.Repeat && !slices.Contains(used, i) {
			out = append(out, i)
		}
	}
	return out
}

// StatePath is where the stub records which invocations have answered: next
// to the log when there is one, else in the scenario directory.
func StatePath(scenarioDir, logPath string) string {
	if logPath != "" {
		return logPath + ".state"
	}
	return filepath.Join(scenarioDir, ".cdkdstub-state.json")
}

// ReadUsed reads the used indices from a state file; a missing file is empty.
func ReadUsed(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(bytes.TrimSpace(b)) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read stub state: %w", err)
	}
	var used []int
	if err := json.Unmarshal(b, &used); err != nil {
		return nil, fmt.Errorf("decode stub state %s: %w", path, err)
	}
	return used, nil
}

// ReadLog reads the calls logged so far; a missing log is empty.
func ReadLog(path string) ([]Call, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read stub log: %w", err)
	}
	defer f.Close()
	var calls []Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("decode stub log %s: %w", path, err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read stub log: %w", err)
	}
	return calls, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
