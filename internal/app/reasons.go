package app

import (
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// The failure reasons and exit codes are internal/reason's one list; these
// names keep app's code short.

// FailureReason is the failure-reason output (reason.Reason): why the step
// failed, in a word a workflow can branch on. Its Code is its exit code.
type FailureReason = reason.Reason

// ExitCode is the action's exit status (reason.Exit).
type ExitCode = reason.Exit

// The exit codes (see reason.Exit).
const (
	ExitOK       = reason.ExitOK
	ExitChanges  = reason.ExitChanges
	ExitBadInput = reason.ExitBadInput
	ExitFailure  = reason.ExitFailure
)

// The reasons app's code names (see reason's list for what each means).
const (
	ReasonNone             = reason.None
	ReasonBadInput         = reason.BadInput
	ReasonCdkdFailed       = reason.CdkdFailed
	ReasonAPIFailed        = reason.APIFailed
	ReasonChanges          = reason.Changes
	ReasonDrift            = reason.Drift
	ReasonIncomplete       = reason.Incomplete
	ReasonResolutionFailed = reason.ResolutionFailed
	ReasonStateLocked      = reason.StateLocked
	ReasonDeployFailed     = reason.DeployFailed
	ReasonPartial          = reason.Partial
	ReasonCancelled        = reason.Cancelled
	ReasonTimeout          = reason.Timeout
	ReasonShardFailed      = reason.ShardFailed
	ReasonReportNotWritten = reason.ReportNotWritten
)
