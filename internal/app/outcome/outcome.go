// Package outcome is how a command ends: the Outcome it returns, which
// App.Run turns into the exit code, the failure-reason output, the error
// line and (when the command wrote none) the job summary, in one place.
package outcome

import (
	"errors"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// Outcome is how a command ended. A command returns it and does nothing
// more: App.Run turns it into the exit code, the failure-reason output, the
// error line and (when the command wrote none) the job summary, in one place,
// so that no path can forget one of them.
type Outcome struct {
	// Reason is the failure-reason output; reason.None for a run that worked.
	Reason reason.Reason
	// Code is the step's exit code, Reason.Code() unless the command knows
	// better (a --dry-run refusal exits 1 with the gate's reason).
	Code reason.Exit
	// Message is the error line, "" when the command already said why.
	Message string
	// Unreported marks a failure of the run itself (as opposed to a result
	// the workflow asked to fail on): its message is folded, and repeated
	// parts are dropped, before it is printed.
	Unreported bool
}

// Succeeded is the Outcome of a run that worked, changes or drift included.
func Succeeded() Outcome { return Outcome{} }

// Failed is the Outcome of a run that failed: bad input, cdkd, AWS or the
// GitHub API; err says why.
func Failed(why reason.Reason, err error) Outcome {
	return Outcome{Reason: why, Code: why.Code(), Message: err.Error(), Unreported: true}
}

// FailedOn is the Outcome of a result the workflow asked to fail on
// (fail-on-changes, fail-on-drift, ...): not an error of cdkd-action's, so
// exit 1, with the reason as failure-reason.
func FailedOn(why reason.Reason, msg string) Outcome {
	return Outcome{Reason: why, Code: why.Code(), Message: msg}
}

// CdkdReason is the failure reason for a failed cdkd call: timeout when
// timeout-minutes stopped it, else fallback.
func CdkdReason(err error, fallback reason.Reason) reason.Reason {
	if errors.Is(err, cdkd.ErrTimeout) {
		return reason.Timeout
	}
	return fallback
}

// PublishFailure is the reason a failed publication fails the run with:
// a report file that was the run's product, or a GitHub write.
func PublishFailure(err error) reason.Reason {
	if errors.Is(err, publish.ErrReportNotWritten) {
		return reason.ReportNotWritten
	}
	return reason.APIFailed
}
