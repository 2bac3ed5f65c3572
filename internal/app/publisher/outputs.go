package publisher

import "github.com/cdkd-action/cdkd-action/internal/reporters"

// The step outputs the wiring sets. The counting outputs a result sets are
// internal/reporters' (DiffOutputs, DriftOutputs).
const (
	OutputReportJSON     = "report-json"
	OutputCommentURL     = "comment-url"
	OutputCheckRunURL    = "check-run-url"
	OutputFailureReason  = "failure-reason"
	OutputIssueURL       = "issue-url"
	OutputDeployed       = "deployed"
	OutputStackOutputs   = "stack-outputs"
	OutputEnvironmentURL = "environment-url"
	OutputDigest         = "digest"
	OutputMatrix         = "matrix"
	OutputShardCount     = "shard-count"
)

// OutputNames lists every output the action sets, as action.yml declares
// them (a test checks that the two lists agree).
var OutputNames = []string{
	reporters.OutputHasChanges, reporters.OutputToCreate, reporters.OutputToUpdate, reporters.OutputToDelete, reporters.OutputToReplace,
	reporters.OutputOutputsChanged, reporters.OutputSecurityChanges, reporters.OutputBroadening,
	reporters.OutputDriftStatus, reporters.OutputDriftedCount, reporters.OutputNotComparedCount,
	OutputReportJSON, OutputCommentURL, OutputCheckRunURL, OutputFailureReason, OutputIssueURL, OutputDeployed,
	OutputStackOutputs, OutputEnvironmentURL, OutputDigest, OutputMatrix, OutputShardCount,
}
