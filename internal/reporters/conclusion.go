package reporters

import "github.com/cdkd-action/cdkd-action/internal/model"

// The check runs' conclusions: what GitHub shows as the check's state next
// to the title the report gives it.

// DiffConclusion is the diff check run's conclusion and title, for the diff
// d the run reviewed (nil when it has none): failure when the diff failed
// or a shard is missing, or when there are changes and fail-on-changes is
// set; neutral when nothing was compared or there are changes; success
// only for a diff of at least one stack that changes nothing.
func DiffConclusion(rep DiffReport, d *model.Diff, failOnChanges bool) (conclusion, title string) {
	if rep.Error != "" || d == nil {
		return "failure", "cdkd diff failed"
	}
	if rep.Missing != "" {
		return "failure", "Incomplete: not every shard reported"
	}
	if len(d.Stacks) == 0 {
		// Nothing was compared: not a clean bill of health.
		return "neutral", "No stack diffed"
	}
	if !d.AnyChange() {
		return "success", "No changes"
	}
	title = ChangeTitle(*d)
	if failOnChanges {
		return "failure", title
	}
	return "neutral", title
}

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
