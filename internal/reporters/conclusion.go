package reporters

// The check runs' conclusions: what GitHub shows as the check's state next
// to the title the report gives it.

// DeployConclusion: only a deploy that ran to the end, or a merge queue's
// group verify passed, succeeds; a cancelled job is said as such; anything
// else (refused, failed, partial, locked) fails.
func DeployConclusion(o DeployOutcome) string {
	switch o {
	case OutcomeDeployed, OutcomeVerified:
		return "success"
	case OutcomeCancelled:
		return "cancelled"
	}
	return "failure"
}
