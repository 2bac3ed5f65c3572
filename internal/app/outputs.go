package app

// The step outputs, as action.yml declares them (a test checks that the two
// lists agree).
const (
	OutputHasChanges       = "has-changes"
	OutputToCreate         = "to-create"
	OutputToUpdate         = "to-update"
	OutputToDelete         = "to-delete"
	OutputToReplace        = "to-replace"
	OutputOutputsChanged   = "outputs-changed"
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
	OutputSecurityChanges  = "security-changes"
	OutputBroadening       = "broadening"
)

// outputNames lists every output the action sets.
var outputNames = []string{
	OutputHasChanges, OutputToCreate, OutputToUpdate, OutputToDelete, OutputToReplace, OutputOutputsChanged,
	OutputReportJSON, OutputCommentURL, OutputCheckRunURL, OutputFailureReason, OutputDriftStatus,
	OutputDriftedCount, OutputNotComparedCount, OutputIssueURL, OutputDeployed, OutputStackOutputs, OutputEnvironmentURL,
	OutputDigest, OutputMatrix, OutputShardCount, OutputSecurityChanges, OutputBroadening,
}
