package app

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Outcome is how a command ended. A command returns it and does nothing
// more: App.Run turns it into the exit code, the failure-reason output, the
// error line and (when the command wrote none) the job summary, in one place
// (Env.finish), so that no path can forget one of them.
type Outcome struct {
	// Reason is the failure-reason output; ReasonNone for a run that worked.
	Reason FailureReason
	// Code is the step's exit code, Reason.Code() unless the command knows
	// better (a --dry-run refusal exits 1 with the gate's reason).
	Code ExitCode
	// Message is the error line, "" when the command already said why.
	Message string
	// unreported marks a failure of the run itself (as opposed to a result
	// the workflow asked to fail on): its message is folded, and repeated
	// parts are dropped, before it is printed.
	unreported bool
}

// succeeded is the Outcome of a run that worked, changes or drift included.
func succeeded() Outcome { return Outcome{} }

// failed is the Outcome of a run that failed: bad input, cdkd, AWS or the
// GitHub API; err says why.
func failed(reason FailureReason, err error) Outcome {
	return Outcome{Reason: reason, Code: reason.Code(), Message: err.Error(), unreported: true}
}

// failedOn is the Outcome of a result the workflow asked to fail on
// (fail-on-changes, fail-on-drift, ...): not an error of cdkd-action's, so
// exit 1, with the reason as failure-reason.
func failedOn(reason FailureReason, msg string) Outcome {
	return Outcome{Reason: reason, Code: reason.Code(), Message: msg}
}

// finish reports an Outcome on every channel that still works: the log,
// the failure-reason output and, if the command wrote none, the job summary
// (every failure path writes one). It returns the exit code.
func (r *Env) finish(o Outcome) ExitCode {
	r.flushHeld()
	r.setOutput(OutputFailureReason, o.Reason.String())
	if o.Message == "" {
		return o.Code
	}
	msg := o.Message
	if o.unreported {
		// Redacted before and after dropRepeats: removing a repeated part
		// must neither break a secret's match nor join one together.
		msg = r.set.Redact(dropRepeats(r.set.OneLine(msg)))
	}
	r.runner.Error(msg)
	if !r.summaryWritten {
		title := "cdkd-action failed"
		if r.cfg.Command != "" {
			title = fmt.Sprintf("cdkd %s failed", r.cfg.Command)
		}
		r.summary(fmt.Sprintf("## ❌ %s\n\n%s\n", title, reporters.Text(msg)))
	}
	return o.Code
}
