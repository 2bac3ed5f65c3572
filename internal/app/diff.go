package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// diff runs `cdkd diff` (or reads a saved one) and reports it on every channel.
func (r *run) diff(ctx context.Context) ExitCode {
	d, version, err := r.obtainDiff(ctx)
	report := r.newDiffReport(version)
	if err != nil {
		var cerr *cdkd.Error
		if errors.As(err, &cerr) {
			report.StderrTail = r.redactLines(cerr.StderrTail)
		}
		if config.IsInputError(err) {
			// Bad input posts nothing: the summary and the log say why.
			return r.fail("bad-input", err, ExitBadInput, nil)
		}
		report.Error = r.failureText(err)
		r.publishDiff(ctx, report, nil)
		return r.fail("cdkd-failed", err, ExitFailure, nil)
	}
	return r.reportDiff(ctx, report, d)
}

func (r *run) newDiffReport(cdkdVersion string) reporters.DiffReport {
	return reporters.DiffReport{
		Label:          r.cfg.Label,
		HeadSHA:        r.gh.HeadSHA,
		RunURL:         r.gh.RunURL,
		CdkdVersion:    cdkdVersion,
		FullReportHint: r.fullReportHint(),
		Notes:          r.notes,
	}
}

// reportDiff redacts a diff, sets the outputs and publishes it. A report
// that is Missing part of the change set (a shard that did not report) is
// published as it is, without a digest a deploy could match, and fails.
func (r *run) reportDiff(ctx context.Context, report reporters.DiffReport, d model.Diff) ExitCode {
	discover.RedactDiff(&d, r.positions(), r.set)
	d.Sort()
	report.Diff = d
	totals := d.Totals()
	if report.Missing == "" {
		report.Digest = d.Digest()
	}

	r.setOutput("has-changes", strconv.FormatBool(totals.Any()))
	r.setOutput("to-create", strconv.Itoa(totals.Create))
	r.setOutput("to-update", strconv.Itoa(totals.Update))
	r.setOutput("to-replace", strconv.Itoa(totals.Replace))
	r.setOutput("to-delete", strconv.Itoa(totals.Delete))
	r.setOutput("outputs-changed", strconv.Itoa(totals.Outputs()))
	r.setOutput("digest", report.Digest)

	apiErr := r.publishDiff(ctx, report, &d)
	if report.Missing != "" {
		return r.fail("shard-failed", errors.New(report.Missing), ExitFailure, nil)
	}
	if apiErr != nil {
		return r.fail("api-failed", apiErr, ExitFailure, nil)
	}
	if totals.Any() && r.cfg.FailOnChanges {
		return r.failOnResult("changes", fmt.Sprintf("cdkd diff found changes (%s) and fail-on-changes is true", reporters.CountsText(totals)))
	}
	return ExitOK
}

// obtainDiff reads from-json or runs cdkd; the error is cdkd's own reason.
func (r *run) obtainDiff(ctx context.Context) (model.Diff, string, error) {
	defer r.lateAssembly(ctx) // before the caller redacts the diff: see assembly_late.go
	if r.cfg.FromJSON != "" {
		b, err := os.ReadFile(r.cfg.FromJSON)
		if err != nil {
			return model.Diff{}, "", fmt.Errorf("read from-json %s: %w", r.cfg.FromJSON, err)
		}
		d, err := cdkd.DecodeDiff(b)
		if err != nil {
			return model.Diff{}, "", &config.InputError{Input: "from-json", Msg: fmt.Sprintf("expected cdkd diff --json output in %s: %v", r.cfg.FromJSON, err)}
		}
		return d, "", nil
	}
	runner := r.cdkdRunner()
	version, verr := runner.Version(ctx)
	if verr != nil {
		if errors.Is(verr, cdkd.ErrNotFound) {
			return model.Diff{}, "", verr
		}
		version = ""
	}
	args, err := cdkd.DiffArgs(r.common())
	if err != nil {
		return model.Diff{}, version, err
	}
	res, err := r.runCdkd(ctx, runner, args)
	if err != nil {
		return model.Diff{}, version, err
	}
	d, err := cdkd.ClassifyDiff(res)
	return d, version, err
}

func (r *run) common() cdkd.Common {
	prefix := r.cfg.StatePrefix
	if prefix == "cdkd" {
		prefix = "" // cdkd's own default: keep the command line short
	}
	return cdkd.Common{
		Stacks:      r.cfg.Stacks,
		All:         r.cfg.All,
		App:         r.cfg.App,
		Context:     r.cfg.Context,
		StateBucket: r.cfg.StateBucket,
		StatePrefix: prefix,
		RoleARN:     r.cfg.RoleARN,
	}
}

// publishDiff writes the report to every channel. It returns an error only
// for an API failure that is not a missing permission (a fork PR's token
// cannot write: that degrades to the job summary with a warning).
func (r *run) publishDiff(ctx context.Context, rep reporters.DiffReport, d *model.Diff) error {
	render := func(b reporters.Budget) string { return reporters.DiffMarkdown(rep, b) }
	if !r.publishOffline("diff", diffReportJSON(rep, d, r.cfg.Shard), render) {
		return nil
	}
	var errs []error
	if r.cfg.Comment != config.CommentOff && r.gh.PR != nil {
		header := github.Header{V: 1, Kind: "diff", Label: r.cfg.Label, SHA: r.gh.HeadSHA, Cdkd: rep.CdkdVersion}
		if rep.Error == "" && rep.Missing == "" {
			header.Digest = rep.Digest
		}
		url, err := r.upsertComment(ctx, header, func(b reporters.Budget) string {
			line := r.changeSetLine(d, &b) // the reviewed change set, for deploy (see gate.EncodeChangeSet)
			return line + render(b)
		})
		if err == nil {
			r.setOutput("comment-url", url)
		}
		if err := r.degrade(err, "cannot write the pull request comment (a fork's token has no write permission?): %v; the report is in the job summary"); err != nil {
			errs = append(errs, err)
		}
	}
	cr := github.CheckRun{Name: checkName("cdkd diff", r.cfg.Label), HeadSHA: r.gh.HeadSHA}
	cr.Conclusion, cr.Title = diffConclusion(rep, d, r.cfg.FailOnChanges)
	if rep.Error == "" && rep.Missing == "" && d != nil {
		cr.ExternalID = gate.DiffMarker(rep.Digest) // the review, where no one can edit it: deploy cross-checks the comment with it
	}
	if err := r.publishCheckRun(ctx, cr, render); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func diffConclusion(rep reporters.DiffReport, d *model.Diff, failOnChanges bool) (conclusion, title string) {
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
	totals := d.Totals()
	if !totals.Any() {
		return "success", "No changes"
	}
	title = reporters.CountsText(totals)
	if failOnChanges {
		return "failure", title
	}
	return "neutral", title
}

func checkName(base, label string) string {
	if label == "" {
		return base
	}
	return base + " (" + label + ")"
}

// diffReportJSON is the normalized report written for other steps to read.
func diffReportJSON(rep reporters.DiffReport, d *model.Diff, shard *config.Shard) any {
	type out struct {
		Kind        string            `json:"kind"`
		Label       string            `json:"label"`
		HeadSHA     string            `json:"headSha,omitempty"`
		CdkdVersion string            `json:"cdkdVersion,omitempty"`
		Digest      string            `json:"digest,omitempty"`
		HasChanges  bool              `json:"hasChanges"`
		Totals      *model.Counts     `json:"totals,omitempty"`
		Error       string            `json:"error,omitempty"`
		Stacks      []model.StackDiff `json:"stacks"`
		Notes       []string          `json:"notes,omitempty"`
		Shard       *config.Shard     `json:"shard,omitempty"`
	}
	o := out{Kind: "diff", Label: rep.Label, HeadSHA: rep.HeadSHA, CdkdVersion: rep.CdkdVersion, Error: rep.Error, Stacks: []model.StackDiff{}, Notes: rep.Notes, Shard: shard}
	if d != nil {
		t := d.Totals()
		o.Totals, o.HasChanges, o.Digest, o.Stacks = &t, t.Any(), rep.Digest, d.Stacks
	}
	return o
}
