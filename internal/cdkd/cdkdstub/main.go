// Command cdkdstub is a fake cdkd for tests. It answers from a scenario (see
// package scenario), checks its argv and environment against it, and logs
// every invocation. An unexpected invocation prints
// "cdkdstub: unexpected argv ..." and exits 99, so a test fails visibly.
//
// Tests build it with cdkdtest.BuildStub.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdstub/scenario"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	dir := os.Getenv(scenario.EnvScenario)
	logPath := os.Getenv(scenario.EnvLog)
	isVersion := slices.Equal(args, []string{"--version"})
	if dir == "" {
		if isVersion {
			fmt.Fprintln(stdout, scenario.DefaultVersion)
			return 0
		}
		fmt.Fprintf(stderr, "cdkdstub: %s is not set; unexpected argv %q\n", scenario.EnvScenario, args)
		return scenario.ExitUnexpected
	}
	invs, err := scenario.Load(dir)
	if err != nil {
		fmt.Fprintf(stderr, "cdkdstub: %v\n", err)
		return scenario.ExitUnexpected
	}

	idx, why, err := claim(invs, dir, logPath, args, isVersion)
	if err != nil {
		fmt.Fprintf(stderr, "cdkdstub: %v\n", err)
		return scenario.ExitUnexpected
	}
	if idx < 0 {
		if isVersion {
			fmt.Fprintln(stdout, scenario.DefaultVersion)
			return 0
		}
		fmt.Fprintf(stderr, "cdkdstub: unexpected argv %q\n", args)
		for _, w := range why {
			fmt.Fprintf(stderr, "cdkdstub:   %s\n", w)
		}
		return scenario.ExitUnexpected
	}
	return answer(invs[idx], dir, stdout, stderr)
}

// claim selects the answering invocation and records it (state and log)
// under an exclusive lock, so concurrent invocations see each other.
func claim(invs []scenario.Invocation, dir, logPath string, args []string, isVersion bool) (int, []string, error) {
	statePath := scenario.StatePath(dir, logPath)
	lock, err := os.OpenFile(statePath+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return -1, nil, fmt.Errorf("open state lock: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return -1, nil, fmt.Errorf("lock state: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing releases it too

	used, err := scenario.ReadUsed(statePath)
	if err != nil {
		return -1, nil, err
	}
	idx, why := scenario.Select(invs, used, args, os.LookupEnv)
	if idx >= 0 && !slices.Contains(used, idx) {
		used = append(used, idx)
		b, _ := json.Marshal(used)
		if err := os.WriteFile(statePath, b, 0o644); err != nil {
			return -1, nil, fmt.Errorf("write state: %w", err)
		}
	}
	if logPath != "" {
		if err := appendLog(logPath, scenario.Call{Args: args, Matched: idx, Default: idx < 0 && isVersion}); err != nil {
			return -1, nil, err
		}
	}
	return idx, why, nil
}

func appendLog(path string, call scenario.Call) error {
	call.Dir, _ = os.Getwd()
	if call.Args == nil {
		call.Args = []string{}
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CDKD_") && !strings.HasPrefix(k, "CDKD_STUB_") {
			if call.Env == nil {
				call.Env = map[string]string{}
			}
			call.Env[k] = v
		}
	}
	b, err := json.Marshal(call)
	if err != nil {
		return fmt.Errorf("encode log entry: %w", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write log: %w", err)
	}
	return f.Close()
}

func answer(inv scenario.Invocation, dir string, stdout, stderr io.Writer) int {
	var sigs chan os.Signal
	if inv.OnSigint != nil {
		sigs = make(chan os.Signal, 4)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	}
	// wait sleeps, unless a signal ends the run; it returns the exit code
	// the signal handler chose, or -1 to carry on.
	wait := func(ms int) int {
		deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
		for {
			left := time.Until(deadline)
			if left <= 0 {
				return -1
			}
			select {
			case <-time.After(left):
				return -1
			case <-sigs: // nil channel when no handler: never fires
				h := inv.OnSigint
				if h.Ignore {
					fmt.Fprintln(stderr, "cdkdstub: ignoring signal")
					continue
				}
				fmt.Fprint(stdout, h.Stdout)
				fmt.Fprint(stderr, h.Stderr)
				if h.DelayMs > 0 {
					time.Sleep(time.Duration(h.DelayMs) * time.Millisecond)
				}
				return h.Exit
			}
		}
	}

	for _, out := range []struct {
		w          io.Writer
		text, file string
	}{{stdout, inv.Stdout, inv.StdoutFile}, {stderr, inv.Stderr, inv.StderrFile}} {
		if out.file != "" {
			p := out.file
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				fmt.Fprintf(stderr, "cdkdstub: %v\n", err)
				return scenario.ExitUnexpected
			}
			out.w.Write(b) //nolint:errcheck // nothing to do about a closed pipe
		}
		fmt.Fprint(out.w, out.text)
	}
	for _, l := range inv.StderrLines {
		if code := wait(l.DelayMs); code >= 0 {
			return code
		}
		fmt.Fprintln(stderr, l.Text)
	}
	if code := wait(inv.DelayMs); code >= 0 {
		return code
	}
	if inv.Signal != "" {
		return killSelf(inv.Signal, stderr)
	}
	return inv.Exit
}

// killSelf ends the process with the named signal. The Go runtime turns a
// SIGSEGV into a panic and exit 2, so the process becomes a shell (exec keeps
// the pid) that sends the signal to itself, as a crashed cdkd ends.
func killSelf(name string, stderr io.Writer) int {
	if !strings.HasPrefix(name, "SIG") || strings.ContainsFunc(name[3:], func(r rune) bool { return r < 'A' || r > 'Z' }) {
		fmt.Fprintf(stderr, "cdkdstub: unknown signal %q\n", name)
		return scenario.ExitUnexpected
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		sh = "/bin/sh" // the test may give the stub no PATH
	}
	err = syscall.Exec(sh, []string{"sh", "-c", "kill -" + name[3:] + " $$"}, os.Environ())
	fmt.Fprintf(stderr, "cdkdstub: kill itself with %s: %v\n", name, err)
	return scenario.ExitUnexpected
}
