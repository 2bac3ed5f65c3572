package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// diffCommand runs `cdkd diff` (or reads a saved one) and reports it on
// every channel.
type diffCommand struct{}

// diffRun is one diff: the Env, and what the diff keeps for itself.
type diffRun struct {
	*Env
	// notes are sentences for the report: no assembly was found, a
	// fingerprint record was written with another key.
	notes []string
}

func (diffCommand) Run(ctx context.Context, env *Env) Outcome {
	return (&diffRun{Env: env}).run(ctx)
}

func (r *diffRun) run(ctx context.Context) Outcome {
	d, version, err := r.obtainDiff(ctx)
	if r.asm == nil {
		// Neither the app input nor cdk.out held an assembly.
		r.notes = append(r.notes, noAssemblyNote)
	}
	report := r.newDiffReport(version)
	if err != nil {
		var cerr *cdkd.Error
		if errors.As(err, &cerr) {
			report.StderrTail = r.redactLines(cerr.StderrTail)
		}
		if config.IsInputError(err) {
			// Bad input posts nothing: the summary and the log say why.
			return failed(ReasonBadInput, err)
		}
		report.Error = r.failureText(err)
		r.publishDiff(ctx, report, nil, nil)
		return failed(cdkdReason(err, ReasonCdkdFailed), err)
	}
	hidden, _ := r.redactDiff(ctx, &d)
	r.securityChanges(ctx, &d)
	r.secretValues(ctx, &d) // what cdkd cannot see: whether a secret value changed
	// secretValues may have added to r.notes.
	report.Notes = append(slices.Clone(r.notes), hidden...)
	return r.reportDiff(ctx, report, d)
}

func (r *diffRun) newDiffReport(cdkdVersion string) reporters.DiffReport {
	return reporters.DiffReport{
		Label:          r.cfg.Label,
		HeadSHA:        r.gh.HeadSHA,
		RunURL:         r.gh.RunURL,
		CdkdVersion:    cdkdVersion,
		CdkdSource:     r.cdkdSource(),
		FullReportHint: r.fullReportHint(),
		Notes:          r.notes,
		Shard:          shardRef(r.cfg.Shard),
	}
}

// reportDiff sets the outputs of a placed, redacted diff and publishes it.
// A report that is Missing part of the change set (a shard that did not
// report) is published as it is, without a digest a deploy could match,
// and fails.
func (r *diffRun) reportDiff(ctx context.Context, report reporters.DiffReport, d model.Diff) Outcome {
	d.Sort()
	report.Diff = d
	if report.Missing == "" {
		report.Digest = d.Digest()
	}
	if d.Masks().Tokens > 0 {
		report.FingerprintKeyID = r.maskKeyID(ctx)
	}
	if scope := deployScope(r.cfg, r.asm, d); scope != "" {
		report.Notes = append(slices.Clone(report.Notes), scope)
	}
	outputs := reporters.DiffOutputs(d.Totals(), d.AnyChange(), d.SecurityTally())
	outputs[OutputDigest] = report.Digest

	apiErr := r.publishDiff(ctx, report, &d, outputs)
	if report.Missing != "" {
		return failed(ReasonShardFailed, errors.New(report.Missing))
	}
	if apiErr != nil {
		return failed(publishFailure(apiErr), apiErr)
	}
	if d.AnyChange() && r.cfg.FailOnChanges {
		return failedOn(ReasonChanges, fmt.Sprintf("cdkd diff found changes (%s) and fail-on-changes is true", reporters.ChangeTitle(d)))
	}
	return succeeded()
}

// obtainDiff reads from-json or runs cdkd; the error is cdkd's own reason.
func (r *Env) obtainDiff(ctx context.Context) (model.Diff, string, error) {
	defer r.lateAssembly(ctx) // before the caller redacts the diff: see assembly_late.go
	if r.cfg.FromJSON != "" {
		d, err := r.fromJSON().diffIn(r.cfg.FromJSON)
		if err == nil {
			err = r.selectSavedDiff(&d)
		}
		return d, "", err
	}
	runner := r.cdkdRunner()
	version, verr := r.cdkdVersion(ctx, runner)
	if verr != nil {
		// A hung --version is a hung binary: the diff would hang too.
		if errors.Is(verr, cdkd.ErrNotFound) || errors.Is(verr, cdkd.ErrTimeout) {
			return model.Diff{}, "", verr
		}
		version = ""
	}
	args, err := cdkd.DiffArgs(r.common())
	if err != nil {
		return model.Diff{}, version, err
	}
	run := r.runCdkd
	if r.asm == nil {
		// cdkd synthesizes: what the assembly holds is known only after
		// it ran, so its log waits for the caller's redactDiff.
		run = r.runCdkdHeld
	}
	res, err := run(ctx, runner, args)
	if err != nil {
		return model.Diff{}, version, err
	}
	d, err := cdkd.ClassifyDiff(res)
	return d, version, err
}

// publishDiff writes the report, with its step outputs, to every
// channel: the sticky comment, then the check run vouching for it. It
// returns an error only for an API failure that is not a missing
// permission (a fork PR's token cannot write: that degrades to the job
// summary with a warning).
func (r *diffRun) publishDiff(ctx context.Context, rep reporters.DiffReport, d *model.Diff, outputs map[string]string) error {
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
	p := &publish.Publication{
		Kind:    "diff",
		Result:  rep.Result(),
		Render:  func(b reporters.Budget) string { return reporters.DiffMarkdown(rep, b) },
		Outputs: outputs,
	}
	cr := &publish.CheckRunFields{Name: checkName("cdkd diff", r.cfg.Label), HeadSHA: r.gh.HeadSHA}
	cr.Conclusion, cr.Title = reporters.DiffConclusion(rep, d, r.cfg.FailOnChanges)
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
			if c, ok := prcomment.Parse(w.Comment.Body); ok {
				digest, report, renderer = c.Header.Digest, c.Report, max(c.Header.Render, 1)
				if where == gate.KeptInComment && c.ChangeSet == "" {
					where = gate.KeptNowhere // too large for the comment, and not stored
				}
			}
			return gate.ReviewMarker(digest, w.Comment.ID, prcomment.ReportHash(report), renderer, where)
		}
	}
	p.CheckRun = cr
	var comment []publish.Target
	if r.publishesToAPI() && r.cfg.Comment != config.CommentOff && r.gh.PR != nil {
		header := marker.Header{V: 1, Kind: prcomment.KindDiff, Label: r.cfg.Label, SHA: r.gh.HeadSHA, Cdkd: rep.CdkdVersion}
		if rep.Error == "" && rep.Missing == "" {
			header.Digest = rep.Digest
		}
		header.Extra = r.fingerprintHeader(ctx)
		p.Comment = &publish.CommentFields{Header: header, Render: func(h marker.Header, b reporters.Budget) prcomment.Comment {
			return r.diffComment(h, rep, d, kept == gate.KeptStored, b)
		}}
		comment = append(comment, &publish.Comment{API: r.api, Owner: r.gh.Owner, Repo: r.gh.Repo, PR: r.gh.PR.Number, HeadSHA: r.gh.HeadSHA,
			RunURL: r.gh.RunURL, Identity: r.ident(), Mode: r.commentMode(), Output: OutputCommentURL})
	}
	api := append(comment, r.checkRun()...)
	if r.cfg.MergeQueue && len(api) > len(comment) && r.gh.PR != nil && rep.Shard == nil {
		api = append(api, r.queueCheckOnHead(rep))
	}
	return r.pub().Publish(ctx, p, r.targets(api...)...)
}

func checkName(base, label string) string {
	if label == "" {
		return base
	}
	return base + " (" + label + ")"
}
