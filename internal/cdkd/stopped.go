package cdkd

import (
	"fmt"
	"slices"
	"strings"
)

// Target is one stack a cdkd command worked on, for the force-unlock command
// of a lock it may have left held.
type Target struct{ Stack, Region string }

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

// LockState explains, after a run that was stopped or died (timed out,
// cancelled, killed by a signal), whether it can have left its state lock
// held, and how to release it: per stack, what cdkd said (see LockWords),
// never a release cdkd did not state. It is "" for a run that ended by
// itself without a signal.
func LockState(res Result, targets []Target) string {
	name := commandName(res.Args)
	if res.Signal == "" && !res.Interrupted && !res.TimedOut && !res.Cancelled {
		return ""
	}
	if !TakesLock(res.Args) {
		return fmt.Sprintf("cdkd %s only reads state and takes no lock, so none is left held.", name)
	}
	switch {
	case res.Killed:
		return stopCause(res) + "; it " + killedWords(res) + ", so it could not release its state lock: " + held(targets)
	case res.Signal != "" && res.Signal != "SIGINT" && res.Signal != "SIGTERM":
		return "cdkd was " + res.ExitText() + ", so it could not release its state lock: " + held(targets)
	}
	cause := stopCause(res)
	words := LockWords(res, targets)
	if len(targets) == 0 {
		switch words[Target{}] {
		case LockReleased:
			return fmt.Sprintf("%s; it ended (%s) and said it released its lock.", cause, res.ExitText())
		case LockMayNotBeReleased:
			return fmt.Sprintf("%s; it ended (%s) and said its lock may not be released: %s", cause, res.ExitText(), held(nil))
		}
		return fmt.Sprintf("%s; it ended (%s) without saying it released its state lock: %s", cause, res.ExitText(), held(nil))
	}
	var said []string
	var notReleased []Target
	for _, t := range targets {
		switch words[t] {
		case LockReleased:
			said = append(said, "cdkd said it released the lock of "+t.Stack+".")
		case LockMayNotBeReleased:
			said = append(said, "cdkd said the lock of "+t.Stack+" may not be released.")
			notReleased = append(notReleased, t)
		default:
			said = append(said, "cdkd did not say it released the lock of "+t.Stack+".")
			notReleased = append(notReleased, t)
		}
	}
	msg := fmt.Sprintf("%s; it ended (%s). %s", cause, res.ExitText(), strings.Join(said, " "))
	if len(notReleased) > 0 {
		h := held(notReleased)
		msg += " " + strings.ToUpper(h[:1]) + h[1:]
	}
	return msg
}

// stopCause is the one wording of why cdkd was interrupted: a timed-out
// run is not a cancelled one.
func stopCause(res Result) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("cdkd ran longer than timeout-minutes (%s) and was interrupted (SIGINT)", res.Limit)
	case res.Cancelled:
		return "The job was cancelled and cdkd was interrupted (SIGINT)"
	case res.Interrupted:
		return "cdkd was interrupted (SIGINT)"
	}
	return "cdkd was " + res.ExitText()
}

// held says that the locks of targets may still be held, and the command
// that releases each.
func held(targets []Target) string {
	var cmds []string
	for _, t := range targets {
		cmds = append(cmds, "`"+ForceUnlockCommand(t.Stack, t.Region)+"`")
	}
	if len(cmds) == 0 {
		cmds = []string{"`cdkd force-unlock <stack> --stack-region <region>`"}
	}
	what, it := "the lock may still be held", "it"
	if len(targets) > 1 {
		what, it = "those locks may still be held", "them"
	} else if len(targets) == 1 {
		what = "the lock of " + targets[0].Stack + " may still be held"
	}
	return what + " (a lock expires after 30 minutes). If no other job is running, release " + it + " with " + strings.Join(cmds, ", ") + "."
}
