package cdkd

import (
	"errors"
	"fmt"
)

// Error is a cdkd run that did not produce a usable answer: it crashed, was
// cancelled, or printed something that is not the promised JSON. It keeps
// what cdkd printed so the report can show it. Reason, Raw and StderrTail
// are cdkd's own words and may carry secrets (today's cdkd prints NoEcho
// values in plaintext): redact them before they leave the process.
type Error struct {
	// Command is the cdkd command, e.g. "diff" or "state show".
	Command  string
	ExitCode int
	// Signal names the signal that ended cdkd, "" when it exited.
	Signal string
	// Reason is one sentence: cdkd's own error line when it gave one.
	Reason string
	// Raw is cdkd's stdout as printed.
	Raw []byte
	// StderrTail is the end of cdkd's stderr, ANSI-stripped.
	StderrTail []string
	// Err is the underlying decode error, when there is one (ErrTimeout
	// for a run stopped by its time limit).
	Err error
	// Lock explains, for a run that was stopped or killed, whether it can
	// have left its state lock held (see LockState); "" otherwise.
	Lock string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("cdkd %s failed (%s): %s", e.Command, exitText(e.ExitCode, e.Signal), e.Reason)
	if errors.Is(e.Err, ErrTimeout) {
		msg = fmt.Sprintf("cdkd %s timed out: %s", e.Command, e.Reason)
	}
	if e.Lock != "" {
		msg += ". " + e.Lock
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func newError(res Result, reason string, err error) *Error {
	if reason == "" {
		reason = fmt.Sprintf("cdkd exited with code %d and printed no error message", res.ExitCode)
		if res.Signal != "" {
			reason = "cdkd was " + res.ExitText() + " and printed no error message"
		}
	}
	return &Error{
		Command:    commandName(res.Args),
		ExitCode:   res.ExitCode,
		Signal:     res.Signal,
		Reason:     reason,
		Raw:        res.Stdout,
		StderrTail: res.StderrTail,
		Err:        err,
		Lock:       LockState(res, nil),
	}
}

// crashReason explains a run that printed no usable payload.
func crashReason(res Result) string {
	switch {
	case res.Cancelled && res.Killed:
		return "the job was cancelled; cdkd " + killedWords(res)
	case res.Cancelled:
		return "the run was cancelled before cdkd finished"
	case res.TimedOut && res.Killed:
		return fmt.Sprintf("cdkd ran longer than %s; it %s", res.Limit, killedWords(res))
	case res.TimedOut:
		return fmt.Sprintf("cdkd ran longer than %s and was interrupted (SIGINT); it ended (%s)", res.Limit, res.ExitText())
	}
	last := LastErrorLine(res.StderrTail)
	if res.Signal != "" {
		if last == "" {
			return "cdkd was killed by " + res.Signal
		}
		return "cdkd was killed by " + res.Signal + " after printing: " + last
	}
	return last
}

// killedWords is the one wording of a kill after the grace period: "did not
// exit within its 8s grace period after SIGINT and was killed (SIGKILL)".
func killedWords(res Result) string {
	return fmt.Sprintf("did not exit within its %s grace period after SIGINT and was killed (SIGKILL)", res.Grace)
}
