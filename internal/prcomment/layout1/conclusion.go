package layout1

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

// DriftConclusion maps where things stand to the drift check run's
// conclusion, with its title: success for clean (neutral when nothing at
// all was compared), failure for drift, for an error and for a resolution
// that fell short, action_required for "could not check" (GitHub requires
// a details URL with it, so neutral without one).
func DriftConclusion(rep DriftReport, runURL string) (conclusion, title string) {
	title = DriftTitle(rep)
	if res := rep.Resolution; res != nil && res.Unsuccessful() {
		return "failure", title
	}
	switch rep.FinalStatus() {
	case model.DriftClean:
		if NothingCompared(rep.Verdict) {
			return "neutral", title // no drift, but no ✓ either: nothing was compared
		}
		return "success", title
	case model.DriftDrifted:
		return "failure", title
	case model.DriftIncomplete:
		if runURL == "" {
			return "neutral", title
		}
		return "action_required", title
	}
	return "failure", title
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

// DeployCheckTitle is the deploy check run's title: the gate's own words
// for a refusal ("Diff changed since review"), else the outcome.
func DeployCheckTitle(r DeployReport) string {
	if r.Outcome == OutcomeRefused && r.Title != "" {
		return r.Title
	}
	return DeployHeadline(r)
}
