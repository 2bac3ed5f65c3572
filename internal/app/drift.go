package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// drift runs `cdkd drift`, optionally resolves what drifted, and reports
// drift, "could not check" and clean apart on every channel: check run, job
// summary, tracking issue, outputs and report JSON.
func (r *run) drift(ctx context.Context) ExitCode {
	rep := reporters.DriftReport{
		Label:          r.cfg.Label,
		SHA:            r.gh.SHA,
		RunURL:         r.gh.RunURL,
		FullReportHint: r.fullReportHint(),
	}
	runner := r.cdkdRunner()
	version, err := runner.Version(ctx)
	if err != nil && !errors.Is(err, cdkd.ErrNotFound) {
		version, err = "", nil // an old or odd --version does not stop the check
	}
	rep.CdkdVersion = version
	var det detection
	if err == nil {
		det, err = r.detectDrift(ctx, runner)
	}
	if err != nil {
		return r.driftFailed(ctx, rep, err)
	}
	rep.Drift, rep.Verdict, rep.CauseNote = det.drift, det.verdict, det.causeNote
	r.setOutput("drift-status", string(det.verdict.Status))
	r.setOutput("drifted-count", strconv.Itoa(det.verdict.Drifted))
	r.setOutput("not-compared-count", strconv.Itoa(det.verdict.NotCompared))

	if r.cfg.DriftResolution != config.ResolutionNone && det.verdict.Status == model.DriftDrifted {
		rep.Resolution = r.resolveDrift(ctx, runner, det.drift)
	}
	apiErr := r.publishDrift(ctx, rep)
	return r.driftExit(rep, apiErr)
}

// detection is one detection run, classified.
type detection struct {
	drift     model.Drift // redacted
	verdict   model.RunVerdict
	causeNote string
}

// detectDrift runs `cdkd drift --json` (never --verbose: it breaks the
// JSON), decides the causes cdkd did not report, and redacts the report. A
// run without a report is an error: exit 1 with no JSON is what today's cdkd
// does when one read fails, and that is neither drift nor clean.
func (r *run) detectDrift(ctx context.Context, runner *cdkd.Runner) (detection, error) {
	args, err := cdkd.DriftArgs(r.common(), r.cfg.StackRegion, cdkd.ResolutionNone)
	if err != nil {
		return detection{}, err
	}
	res, err := r.runCdkd(ctx, runner, args)
	if err != nil {
		return detection{}, err
	}
	dr, err := cdkd.ClassifyDrift(res)
	if err != nil {
		return detection{}, err
	}
	// Causes first: the state lookups need the names before redaction.
	note := r.decideCauses(ctx, &dr.Drift, dr.ExitCode)
	discover.RedactDrift(&dr.Drift, r.positions(), r.set)
	return detection{drift: dr.Drift, verdict: model.ClassifyRun(&dr.Drift, dr.ExitCode), causeNote: note}, nil
}

// driftFailed reports a check that produced no report on every channel, as
// an error: never drift, never clean.
func (r *run) driftFailed(ctx context.Context, rep reporters.DriftReport, err error) ExitCode {
	exit := -1
	var cerr *cdkd.Error
	if errors.As(err, &cerr) {
		exit = cerr.ExitCode
		rep.StderrTail = r.redactLines(cerr.StderrTail)
	}
	rep.Error = r.set.Redact(oneLine(err.Error()))
	rep.Verdict = model.ErrorVerdict(exit, rep.Error)
	r.setOutput("drift-status", string(model.DriftError))
	if apiErr := r.publishDrift(ctx, rep); apiErr != nil {
		r.runner.Warning(fmt.Sprintf("could not publish the drift report: %v", apiErr))
	}
	return r.fail("cdkd-failed", err, ExitFailure, nil)
}

// driftExit follows fail-on-drift and fail-on-incomplete; an error, a failed
// resolution or an API failure always fails.
func (r *run) driftExit(rep reporters.DriftReport, apiErr error) ExitCode {
	final := rep.FinalStatus()
	if res := rep.Resolution; res != nil && resolutionFailed(res) {
		reason := res.Error
		if reason == "" {
			reason = fmt.Sprintf("%d resource(s) were not resolved", len(res.Failed))
		}
		return r.fail("resolution-failed", fmt.Errorf("cdkd drift --%s: %s", res.Mode, reason), ExitFailure, nil)
	}
	if apiErr != nil {
		return r.fail("api-failed", apiErr, ExitFailure, nil)
	}
	switch final {
	case model.DriftError:
		reason := rep.Verdict.Reason
		if res := rep.Resolution; res != nil && res.After != nil {
			reason = "after the " + res.Mode + ": " + res.After.Reason
		} else if res != nil && res.AfterError != "" {
			reason = "after the " + res.Mode + ", drift could not be checked again: " + res.AfterError
		}
		return r.fail("cdkd-failed", errors.New("cdkd drift: "+reason), ExitFailure, nil)
	case model.DriftDrifted:
		if r.cfg.FailOnDrift {
			return r.failOnResult("drift", fmt.Sprintf("cdkd drift: %s, and fail-on-drift is true", reporters.DriftTitle(rep)))
		}
	case model.DriftIncomplete:
		if r.cfg.FailOnIncomplete {
			return r.failOnResult("incomplete", fmt.Sprintf("cdkd drift: %s (not a clean result), and fail-on-incomplete is true", reporters.DriftTitle(rep)))
		}
	}
	return ExitOK
}

func resolutionFailed(res *reporters.ResolutionReport) bool {
	return res.Error != "" || len(res.Failed) > 0
}
