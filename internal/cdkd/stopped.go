package cdkd

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Target is one stack a cdkd command worked on, for the force-unlock command
// of a lock it may have left held.
type Target struct{ Stack, Region string }

// releasedRE matches cdkd saying it released its lock ("Released lock for
// StackA", "lock released"); cdkd's advice "Use --force-unlock to manually
// release the lock" is not such a statement.
var releasedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\breleased\b[^.]*\block\b|\block\b[^.]*\breleased\b`)
})

// TakesLock reports whether a cdkd invocation takes a stack's state lock:
// deploy (even with --dry-run), and drift with --accept or --revert. The
// other commands only read state.
func TakesLock(args []string) bool {
	switch commandName(args) {
	case "deploy", "destroy":
		return true
	case "drift":
		return slices.Contains(args, "--accept") || slices.Contains(args, "--revert")
	}
	return false
}

// SaidReleased reports whether cdkd's last words say it released its lock.
func SaidReleased(res Result) bool {
	for _, l := range res.StderrTail {
		if releasedRE().MatchString(l) && !strings.Contains(l, "force-unlock") {
			return true
		}
	}
	return releasedRE().Match(res.Stdout) && !strings.Contains(string(res.Stdout), "force-unlock")
}

// LockState explains, after a run that was stopped or died (timed out,
// cancelled, killed by a signal), whether it can have left its state lock
// held, and how to release it. It claims a release only when cdkd said so.
// It is "" for a run that ended by itself without a signal.
func LockState(res Result, targets []Target) string {
	name := commandName(res.Args)
	if res.Signal == "" && !res.Interrupted && !res.TimedOut && !res.Cancelled {
		return ""
	}
	if !TakesLock(res.Args) {
		return fmt.Sprintf("cdkd %s only reads state and takes no lock, so none is left held.", name)
	}
	var how string
	switch {
	case res.Killed:
		how = "cdkd " + killedWords(res) + ", so it could not release its state lock"
	case res.Signal != "" && res.Signal != "SIGINT" && res.Signal != "SIGTERM":
		how = "cdkd was " + res.ExitText() + ", so it could not release its state lock"
	case SaidReleased(res):
		return "cdkd was interrupted (SIGINT) and said it released its lock."
	case res.Interrupted:
		how = fmt.Sprintf("cdkd was interrupted (SIGINT) and ended (%s) without saying it released its state lock", res.ExitText())
	default:
		how = "cdkd did not say it released its state lock"
	}
	msg := how + ": the lock may still be held (it expires after 30 minutes)."
	var cmds []string
	for _, t := range targets {
		cmds = append(cmds, "`"+ForceUnlockCommand(t.Stack, t.Region)+"`")
	}
	if len(cmds) == 0 {
		cmds = []string{"`cdkd force-unlock <stack> --stack-region <region>`"}
	}
	return msg + " If no other job is running, release it with " + strings.Join(cmds, ", ") + "."
}
