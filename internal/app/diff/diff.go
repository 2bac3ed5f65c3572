// Package diff is the diff command: it runs `cdkd diff` (or reads a
// saved one), redacts and fingerprints the change set (package changeset),
// and reports it on every channel: the sticky pull request comment that
// is the review a deploy is gated on, the check run that vouches for it,
// the job summary, the outputs and the report JSON.
package diff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/awsedge"
	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Options are what a diff uses, named.
type Options struct {
	Config config.Config
	GitHub ghctx.Context
	// Log is the step's log; its text passes the redactor.
	Log *workflow.Runner
	// Secrets is the run's secret session; Cdkd the cdkd it runs.
	Secrets *session.Session
	Cdkd    *cdkdexec.Executor
	// Channels is where the report goes; AWS holds the state bucket a
	// change set too large for the comment is kept in.
	Channels *publisher.Channels
	AWS      *awsedge.Edge
	// ChangeSets obtains and redacts the change set; Fingerprints keys
	// its hidden-value tokens and tells whether a secret value changed.
	ChangeSets   *changeset.Stage
	Fingerprints *fingerprints.Run
}

// OptionsOf are the parts of a diff, taken from the run's parts p.
func OptionsOf(p *parts.Parts, cfg config.Config, gh ghctx.Context) Options {
	return Options{Config: cfg, GitHub: gh, Log: p.Runner, Secrets: p.Secrets, Cdkd: p.Cdkd, Channels: p.Channels, AWS: p.AWS,
		ChangeSets: p.ChangeSets(), Fingerprints: p.Fingerprints()}
}

// run is one diff: what it uses, and what it keeps for itself.
type run struct {
	Options
	// notes are sentences for the report: no assembly was found, a
	// fingerprint record was written with another key.
	notes []string
}

// Run diffs and reports the change set.
func Run(ctx context.Context, o Options) outcome.Outcome {
	return (&run{Options: o}).diff(ctx)
}

// NewReport is a diff report's header: what every report of this run
// says whatever the change set (cdkdVersion "" when unknown).
func NewReport(o Options, cdkdVersion string) reporters.DiffReport {
	return (&run{Options: o}).newReport(cdkdVersion)
}

// Report publishes a placed, redacted diff (the aggregate's of its
// shards) and says how the run ends, as a diff of its own does.
func Report(ctx context.Context, o Options, report reporters.DiffReport, d model.Diff) outcome.Outcome {
	return (&run{Options: o}).report(ctx, report, d)
}

func (r *run) diff(ctx context.Context) outcome.Outcome {
	d, version, err := r.ChangeSets.Obtain(ctx)
	if r.Secrets.Assembly == nil {
		// Neither the app input nor cdk.out held an assembly.
		r.notes = append(r.notes, session.NoAssemblyNote)
	}
	report := r.newReport(version)
	if err != nil {
		var cerr *cdkd.Error
		if errors.As(err, &cerr) {
			report.StderrTail = r.Secrets.RedactLines(cerr.StderrTail)
		}
		if config.IsInputError(err) {
			// Bad input posts nothing: the summary and the log say why.
			return outcome.Failed(reason.BadInput, err)
		}
		report.Error = r.Cdkd.FailureText(err)
		r.publish(ctx, report, nil, nil)
		return outcome.Failed(outcome.CdkdReason(err, reason.CdkdFailed), err)
	}
	hidden, _ := r.ChangeSets.Redact(ctx, &d, reporters.LatestLayout)
	r.ChangeSets.Security(ctx, &d)
	r.secretValues(ctx, &d) // what cdkd cannot see: whether a secret value changed
	// secretValues may have added to r.notes.
	report.Notes = append(slices.Clone(r.notes), hidden...)
	return r.report(ctx, report, d)
}

func (r *run) newReport(cdkdVersion string) reporters.DiffReport {
	return reporters.DiffReport{
		Label:          r.Config.Label,
		HeadSHA:        r.GitHub.HeadSHA,
		RunURL:         r.GitHub.RunURL,
		CdkdVersion:    cdkdVersion,
		CdkdSource:     r.Cdkd.Source(),
		FullReportHint: r.Channels.FullReportHint(),
		Notes:          r.notes,
		Shard:          publisher.ShardRef(r.Config.Shard),
	}
}

// report sets the outputs of a placed, redacted diff and publishes it.
// A report that is Missing part of the change set (a shard that did not
// report) is published as it is, without a digest a deploy could match,
// and fails.
func (r *run) report(ctx context.Context, report reporters.DiffReport, d model.Diff) outcome.Outcome {
	d.Sort()
	report.Diff = d
	if report.Missing == "" {
		report.Digest = d.Digest()
	}
	if d.HiddenTokens().Tokens > 0 {
		report.FingerprintKeyID = r.Fingerprints.TokenKeyID(ctx)
	}
	if scope := changeset.DeployScope(r.Config, r.Secrets.Assembly, d); scope != "" {
		report.Notes = append(slices.Clone(report.Notes), scope)
	}
	if report.Missing == "" && r.Config.Shard == nil {
		// Before the merge, the stacks a gated deploy adds to the changed
		// ones (a shard's are the aggregate's to say, for the whole).
		sel := changeset.Select(r.Secrets.Assembly, d)
		for _, n := range []string{sel.Names(), sel.NotDeployed()} {
			if n != "" {
				report.Notes = append(slices.Clone(report.Notes), n)
			}
		}
	}
	if report.Missing == "" {
		if early := r.earlyApprovals(ctx, report.Digest); early != "" {
			report.Notes = append(slices.Clone(report.Notes), early)
		}
	}
	outputs := reporters.DiffOutputs(d.Totals(), d.AnyChange(), d.SecurityTally())
	outputs[publisher.OutputDigest] = report.Digest

	apiErr := r.publish(ctx, report, &d, outputs)
	if report.Missing != "" {
		return outcome.Failed(reason.ShardFailed, errors.New(report.Missing))
	}
	if apiErr != nil {
		return outcome.Failed(outcome.PublishFailure(apiErr), apiErr)
	}
	if d.AnyChange() && r.Config.FailOnChanges {
		return outcome.FailedOn(reason.Changes, fmt.Sprintf("cdkd diff found changes (%s) and fail-on-changes is true", reporters.ChangeTitle(d)))
	}
	return outcome.Succeeded()
}

// publish writes the report, with its step outputs, to every
// channel: the sticky comment, then the check run vouching for it. It
// returns an error only for an API failure that is not a missing
// permission (a fork PR's token cannot write: that degrades to the job
// summary with a warning).
func (r *run) publish(ctx context.Context, rep reporters.DiffReport, d *model.Diff, outputs map[string]string) error {
	kept := gate.KeptInComment
	if rep.Error == "" && rep.Missing == "" && d != nil {
		// Too large for the comment: kept in the state bucket, and the
		// comment shows it as the gate will read it back.
		stored, note := r.storeChangeSet(ctx, *d)
		if note != "" {
			rep.Notes = append(slices.Clone(rep.Notes), note)
		}
		if stored != nil {
			d, kept = stored, gate.KeptStored
		}
	}
	// The picture of what the changes touch is drawn in the PR comment;
	// the check run and the job summary point to it as the comment shows
	// it, once it was written (a token without write access writes none).
	var picture *blast.Graph
	where := ""
	if rep.Error == "" && rep.Missing == "" && d != nil && r.Channels.PublishesToAPI() && r.Config.Comment != config.CommentOff && r.GitHub.PR != nil {
		g, notes := r.picture(ctx, *d)
		rep.Notes = append(slices.Clone(rep.Notes), notes...)
		if picture = prcomment.FitPicture(g); picture != nil {
			// A link to the pull request's conversation, where the comment
			// is: its own URL is known only once it is written.
			where = fmt.Sprintf("the PR comment on [#%d](%s/%s/%s/pull/%d)", r.GitHub.PR.Number,
				strings.TrimRight(r.GitHub.ServerURL, "/"), r.GitHub.Owner, r.GitHub.Repo, r.GitHub.PR.Number)
		}
	}
	// shownIn is what the comment as written shows of the picture.
	shownIn := func(w *publish.Written) string {
		if w.Comment.ID == 0 {
			return reporters.PictureNotWritten
		}
		return reporters.PictureShown(w.Wrote)
	}
	var header marker.Header
	var renderComment func(marker.Header, reporters.Budget) prcomment.Comment
	if r.Channels.PublishesToAPI() && r.Config.Comment != config.CommentOff && r.GitHub.PR != nil {
		header = marker.Header{V: 1, Kind: prcomment.KindDiff, Label: r.Config.Label, SHA: r.GitHub.HeadSHA, Cdkd: rep.CdkdVersion}
		if rep.Error == "" && rep.Missing == "" {
			header.Digest = rep.Digest
		}
		header.Extra = r.Fingerprints.Header(ctx)
		// The picture is recorded in the header, outside the digested
		// change set.
		header = prcomment.WithPicture(header, picture)
		renderComment = r.commentOnce(rep, d, kept == gate.KeptStored)
		if where != "" {
			// The report JSON, written before the comment, says what the
			// comment shows of the picture.
			rep.PictureIn, rep.PictureShown = where, reporters.PictureShown(renderComment(header, reporters.CommentBudget).Report)
		}
	}
	// The job summary is written before the comment: it points to the
	// picture in a line added once the comment was written (below).
	summary := rep
	summary.PictureShown = ""
	if r.Channels.Local && rep.Error == "" && rep.Missing == "" && d != nil {
		// A local run has no comment: it prints the picture with the report.
		var notes []string
		summary.Picture, notes = r.picture(ctx, *d)
		summary.Notes = append(slices.Clone(summary.Notes), notes...)
	}
	p := &publish.Publication{
		Kind:    "diff",
		Result:  rep.Result(),
		Render:  func(b reporters.Budget) string { return reporters.DiffMarkdown(summary, b) },
		Outputs: outputs,
	}
	cr := &publish.CheckRunFields{Name: publisher.CheckName("cdkd diff", r.Config.Label), HeadSHA: r.GitHub.HeadSHA}
	if where != "" {
		cr.Summary = func(b reporters.Budget, w *publish.Written) string {
			shown := rep
			shown.PictureShown = shownIn(w)
			return reporters.DiffMarkdown(shown, b)
		}
	}
	cr.Conclusion, cr.Title = reporters.DiffConclusion(rep, d, r.Config.FailOnChanges)
	if rep.Error == "" && rep.Missing == "" && d != nil {
		// The review, where no one can edit it, written after the comments
		// converged: deploy reads the comment it names, and only that one.
		// It is written from what the comment holds: after racing runs, the
		// survivor's digest and report, which may be another run's.
		cr.ExternalID = func(w *publish.Written) string {
			if w.Comment.ID == 0 {
				// No comment known to hold the review: no record names
				// one (a record of comment 0 vouches for nothing).
				return ""
			}
			digest, report, renderer, where := rep.Digest, "", prcomment.RendererVersion, kept
			// The bytes the action wrote, never an edit read back: the
			// comment as re-read when it is ours but for the run link
			// (kept from an earlier run), else what this run wrote.
			body := w.Comment.Body
			if !github.SameBody(body, w.Wrote) {
				body = w.Wrote
			}
			if c, ok := prcomment.Parse(body); ok {
				digest, report, renderer = c.Header.Digest, c.Report, max(c.Header.Render, 1)
				if where == gate.KeptInComment && c.ChangeSet == "" {
					where = gate.KeptNowhere // too large for the comment, and not stored
				}
			}
			return gate.DiffRecord(digest, w.Comment.ID, prcomment.ReportHash(report), renderer, where)
		}
	}
	p.CheckRun = cr
	var comment []publish.Target
	if renderComment != nil {
		p.Comment = &publish.CommentFields{Header: header, Render: renderComment}
		comment = append(comment, &publish.Comment{API: r.Channels.API, Owner: r.GitHub.Owner, Repo: r.GitHub.Repo, PR: r.GitHub.PR.Number, HeadSHA: r.GitHub.HeadSHA,
			RunURL: r.GitHub.RunURL, Identity: r.Channels.Ident(), Mode: r.Channels.CommentMode(), Output: publisher.OutputCommentURL})
	}
	api := append(comment, r.Channels.CheckRun()...)
	if r.Config.MergeQueue && len(api) > len(comment) && r.GitHub.PR != nil && rep.Shard == nil {
		api = append(api, r.queueCheckOnHead(rep))
	}
	targets := r.Channels.Targets(api...)
	if where != "" {
		// Once the comment was written: where the picture is, at the
		// summary's end and in the report JSON.
		p.SummaryNote = func(w *publish.Written) string { return reporters.PicturePointer(where, shownIn(w)) }
		p.ResultAfter = func(w *publish.Written) any {
			res := rep.Result()
			res.Picture = shownIn(w)
			return res
		}
		targets = append(targets, r.Channels.SummaryNote()...)
	}
	return r.Channels.Publisher().Publish(ctx, p, targets...)
}
