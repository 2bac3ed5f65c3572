package reporters

import "github.com/cdkd-action/cdkd-action/internal/model"

// A report is a typed result (the report JSON, see model.DiffResult and its
// siblings) plus what only presentation needs: the hint saying where the
// full report is, trusted Markdown that never comes from a file. These
// functions are the one place a report and its result meet, in both
// directions, so a report re-rendered from its JSON reads like the run's.

// Result is the diff report as its typed result.
func (r DiffReport) Result() model.DiffResult {
	o := model.Origin{Label: r.Label, RunURL: r.RunURL, CdkdVersion: r.CdkdVersion, CdkdSource: r.CdkdSource, Shard: r.Shard}
	if r.Error != "" {
		res := model.FailedDiffResult(o, r.HeadSHA, r.Error, r.StderrTail)
		res.Notes = r.Notes
		return res
	}
	res := model.NewDiffResult(o, r.HeadSHA, r.Digest, r.Diff)
	res.Notes, res.Missing, res.FingerprintKeyID, res.PictureIn, res.Picture = r.Notes, r.Missing, r.FingerprintKeyID, r.PictureIn, r.PictureShown
	return res
}

// DiffReportOf is the report of a diff result.
func DiffReportOf(res model.DiffResult, hint string) DiffReport {
	return DiffReport{
		Diff: res.Diff(), Label: res.Label, HeadSHA: res.HeadSHA, RunURL: res.RunURL, CdkdVersion: res.CdkdVersion, CdkdSource: res.CdkdSource,
		Digest: res.Digest, FullReportHint: hint, Error: res.Error, StderrTail: res.StderrTail, Notes: res.Notes,
		Missing: res.Missing, Shard: res.Shard, FingerprintKeyID: res.FingerprintKeyID, PictureIn: res.PictureIn, PictureShown: res.Picture,
	}
}

// Result is the drift report as its typed result.
func (r DriftReport) Result() model.DriftResult {
	res := model.DriftResult{
		Header:  model.Header{SchemaVersion: model.SchemaVersion, Kind: model.KindDrift},
		Origin:  model.Origin{Label: r.Label, RunURL: r.RunURL, CdkdVersion: r.CdkdVersion, CdkdSource: r.CdkdSource, Shard: r.Shard},
		SHA:     r.SHA,
		Verdict: r.Verdict, Error: r.Error, StderrTail: r.StderrTail, CauseNote: r.CauseNote, Notes: r.Notes,
		HiddenStacks: r.HiddenStacks, Missing: r.Missing, Stacks: r.Drift.Stacks, Resolution: r.Resolution,
	}
	if res.Stacks == nil {
		res.Stacks = []model.StackDrift{}
	}
	return res
}

// DriftReportOf is the report of a drift result.
func DriftReportOf(res model.DriftResult, hint string) DriftReport {
	return DriftReport{
		Drift: model.Drift{Stacks: res.Stacks}, Verdict: res.Verdict, Label: res.Label, SHA: res.SHA, RunURL: res.RunURL,
		CdkdVersion: res.CdkdVersion, CdkdSource: res.CdkdSource, FullReportHint: hint, Error: res.Error, StderrTail: res.StderrTail,
		CauseNote: res.CauseNote, Notes: res.Notes, HiddenStacks: res.HiddenStacks, Resolution: res.Resolution,
		Missing: res.Missing, Shard: res.Shard,
	}
}

// Result is the deploy report as its typed result. A secret stack output's
// value is hidden: the report shows it hidden anyway, and the result leaves
// the process.
func (r DeployReport) Result() model.DeployResult {
	res := model.DeployResult{
		Header:  model.Header{SchemaVersion: model.SchemaVersion, Kind: model.KindDeploy},
		Origin:  model.Origin{Label: r.Label, RunURL: r.RunURL, CdkdVersion: r.CdkdVersion, CdkdSource: r.CdkdSource},
		Outcome: r.Outcome, Deployed: r.Outcome == OutcomeDeployed, Title: r.Title, Message: r.Message, Reason: r.Reason,
		SHA: r.SHA, Digest: r.Digest, Review: model.DeployReview{PullRequest: r.PR, ReviewedSHA: r.ReviewedSHA, CommentURL: r.ReviewURL, Reviewed: r.Reviewed},
		Warnings: r.Warnings, Comparison: r.Comparison, ComparisonNote: r.ComparisonNote, Destructive: r.Destructive,
		Lock: r.Lock, StderrTail: r.StderrTail, Group: r.Group,
	}
	res.Stacks = make([]model.DeployedStack, len(r.Stacks))
	for i, s := range r.Stacks {
		if s.Outputs != nil {
			outs := make([]model.StackOutput, len(s.Outputs))
			for k, o := range s.Outputs {
				if o.Secret {
					o.Value = model.Hidden
				}
				outs[k] = o
			}
			s.Outputs = outs
		}
		res.Stacks[i] = s
	}
	return res
}

// DeployReportOf is the report of a deploy result.
func DeployReportOf(res model.DeployResult, hint string) DeployReport {
	return DeployReport{
		Label: res.Label, Outcome: res.Outcome, Title: res.Title, Message: res.Message, Reason: res.Reason,
		SHA: res.SHA, RunURL: res.RunURL, CdkdVersion: res.CdkdVersion, CdkdSource: res.CdkdSource, Digest: res.Digest, PR: res.Review.PullRequest,
		ReviewedSHA: res.Review.ReviewedSHA, ReviewURL: res.Review.CommentURL, Reviewed: res.Review.Reviewed, Warnings: res.Warnings,
		Comparison: res.Comparison, ComparisonNote: res.ComparisonNote, Destructive: res.Destructive, Lock: res.Lock,
		Stacks: res.Stacks, StderrTail: res.StderrTail, FullReportHint: hint, Group: res.Group,
	}
}
