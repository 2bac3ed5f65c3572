package app

import (
	"errors"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/publish"
)

// FailureReason is the failure-reason output: why the step failed, in a
// word a workflow can branch on. Each reason has one exit code (Code), so
// the two cannot disagree.
type FailureReason string

const (
	// ReasonNone: the step did not fail.
	ReasonNone FailureReason = ""
	// ReasonBadInput: an input or the environment is wrong; nothing ran.
	ReasonBadInput FailureReason = "bad-input"
	// ReasonCdkdFailed: cdkd failed or printed no usable report.
	ReasonCdkdFailed FailureReason = "cdkd-failed"
	// ReasonAPIFailed: a GitHub API write or read failed (not a missing
	// permission, which is a warning).
	ReasonAPIFailed FailureReason = "api-failed"
	// ReasonChanges: diff found changes and fail-on-changes is true.
	ReasonChanges FailureReason = "changes"
	// ReasonDrift: drift found and fail-on-drift is true.
	ReasonDrift FailureReason = "drift"
	// ReasonIncomplete: the drift check was incomplete and
	// fail-on-incomplete is true.
	ReasonIncomplete FailureReason = "incomplete"
	// ReasonResolutionFailed: --accept or --revert did not resolve the drift.
	ReasonResolutionFailed FailureReason = "resolution-failed"
	// The gate refused the deploy (see package gate).
	ReasonNoReviewedDiff     = FailureReason(gate.NoReviewedDiff)
	ReasonStaleReview        = FailureReason(gate.StaleReview)
	ReasonDiffChanged        = FailureReason(gate.DiffChanged)
	ReasonDestructiveRefused = FailureReason(gate.DestructiveRefused)
	ReasonDiffUnverifiable   = FailureReason(gate.DiffUnverifiable)
	ReasonKeyMismatch        = FailureReason(gate.FingerprintKeyMismatch)
	ReasonReviewsContradict  = FailureReason(gate.ReviewsContradict)
	ReasonApprovalsMissing   = FailureReason(gate.ApprovalsMissing)
	ReasonBroadeningRefused  = FailureReason(gate.BroadeningRefused)
	// ReasonStateLocked: another job holds a stack's lock.
	ReasonStateLocked FailureReason = "state-locked"
	// ReasonDeployFailed: cdkd deploy failed.
	ReasonDeployFailed FailureReason = "deploy-failed"
	// ReasonPartial: cdkd left resources unaddressed.
	ReasonPartial FailureReason = "partial"
	// ReasonCancelled: the job was cancelled.
	ReasonCancelled FailureReason = "cancelled"
	// ReasonTimeout: a cdkd call ran longer than timeout-minutes and was
	// stopped (the job itself goes on).
	ReasonTimeout FailureReason = "timeout"
	// ReasonShardFailed: an aggregate's shard is missing, failed, or belongs
	// to another plan or commit.
	ReasonShardFailed FailureReason = "shard-failed"
	// ReasonReportNotWritten: the report JSON of a run whose product it is
	// (a publish: false shard) could not be written (a full disk).
	ReasonReportNotWritten FailureReason = "report-not-written"
)

// publishFailure is the reason a failed publication fails the run with:
// a report file that was the run's product, or a GitHub write.
func publishFailure(err error) FailureReason {
	if errors.Is(err, publish.ErrReportNotWritten) {
		return ReasonReportNotWritten
	}
	return ReasonAPIFailed
}

// Code is the exit code the reason ends the step with: 1 for a result the
// workflow asked to fail on or a deploy the gate refused, 2 for bad input,
// 3 for a failure of cdkd, AWS or GitHub.
func (f FailureReason) Code() ExitCode {
	switch f {
	case ReasonNone:
		return ExitOK
	case ReasonBadInput:
		return ExitBadInput
	case ReasonChanges, ReasonDrift, ReasonIncomplete,
		ReasonNoReviewedDiff, ReasonStaleReview, ReasonDiffChanged, ReasonDestructiveRefused,
		ReasonDiffUnverifiable, ReasonKeyMismatch, ReasonReviewsContradict, ReasonApprovalsMissing, ReasonBroadeningRefused:
		return ExitChanges
	}
	return ExitFailure
}

// String is the output's value.
func (f FailureReason) String() string { return string(f) }

// failureReasons lists every reason, for tests and docs to check against.
var failureReasons = []FailureReason{
	ReasonBadInput, ReasonCdkdFailed, ReasonAPIFailed, ReasonChanges, ReasonDrift, ReasonIncomplete,
	ReasonResolutionFailed, ReasonNoReviewedDiff, ReasonStaleReview, ReasonDiffChanged, ReasonDestructiveRefused,
	ReasonStateLocked, ReasonDeployFailed, ReasonPartial, ReasonCancelled, ReasonTimeout, ReasonShardFailed,
	ReasonDiffUnverifiable, ReasonKeyMismatch, ReasonReviewsContradict, ReasonReportNotWritten, ReasonApprovalsMissing, ReasonBroadeningRefused,
}
