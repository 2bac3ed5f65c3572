package app

import "github.com/cdkd-action/cdkd-action/internal/reporters"

// The step outputs, as action.yml declares them (a test checks that the two
// lists agree).
const (
	OutputReportJSON       = "report-json"
	OutputCommentURL       = "comment-url"
	OutputCheckRunURL      = "check-run-url"
	OutputFailureReason    = "failure-reason"
	OutputDriftStatus      = "drift-status"
	OutputDriftedCount     = "drifted-count"
	OutputNotComparedCount = "not-compared-count"
	OutputIssueURL         = "issue-url"
	OutputDeployed         = "deployed"
	OutputStackOutputs     = "stack-outputs"
	OutputEnvironmentURL   = "environment-url"
	OutputDigest           = "digest"
	OutputMatrix           = "matrix"
	OutputShardCount       = "shard-count"
)

// outputNames lists every output the action sets.
var outputNames = []string{
	reporters.OutputHasChanges, reporters.OutputToCreate, reporters.OutputToUpdate, reporters.OutputToDelete, reporters.OutputToReplace, reporters.OutputOutputsChanged,
	OutputReportJSON, OutputCommentURL, OutputCheckRunURL, OutputFailureReason, OutputDriftStatus,
	OutputDriftedCount, OutputNotComparedCount, OutputIssueURL, OutputDeployed, OutputStackOutputs, OutputEnvironmentURL,
	OutputDigest, OutputMatrix, OutputShardCount, reporters.OutputSecurityChanges, reporters.OutputBroadening,
}
