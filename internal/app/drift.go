package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// driftCommand runs `cdkd drift`, optionally resolves what drifted, and
// reports drift, "could not check" and clean apart on every channel: check
// run, job summary, tracking issue, outputs and report JSON.
type driftCommand struct{}

// driftRun is one drift check: the Env, and what the check keeps for
// itself.
type driftRun struct {
	*Env
	// resolveTimedOut is set when timeout-minutes stopped a drift
	// resolution or the detection after it.
	resolveTimedOut bool
}

func (driftCommand) Run(ctx context.Context, env *Env) Outcome {
	return (&driftRun{Env: env}).run(ctx)
}

func (r *driftRun) run(ctx context.Context) Outcome {
	rep := reporters.DriftReport{
		Label:          r.cfg.Label,
		SHA:            r.gh.SHA,
		RunURL:         r.gh.RunURL,
		FullReportHint: r.fullReportHint(),
		Shard:          shardRef(r.cfg.Shard),
	}
	// Drift does not synthesize: a cdk.out in the working directory now
	// was left by an earlier step. Its positions and secrets are known
	// before cdkd prints anything.
	r.lateAssembly(ctx)
	aws := r.newDriftAWS(ctx)
	r.stateSecrets(ctx, aws, r.namedStacks(ctx, aws))
	runner := r.cdkdRunner()
	version, err := r.cdkdVersion(ctx, runner)
	if err != nil && !errors.Is(err, cdkd.ErrNotFound) && !errors.Is(err, cdkd.ErrTimeout) {
		version, err = "", nil // an old or odd --version does not stop the check
	}
	rep.CdkdVersion, rep.CdkdSource = version, r.cdkdSource()
	var det detection
	if err == nil {
		det, err = r.detectDrift(ctx, runner, aws)
	}
	if config.IsInputError(err) {
		// Bad input (a saved file that is not cdkd drift --json) posts
		// nothing, as for diff: the summary and the log say why.
		return failed(ReasonBadInput, err)
	}
	if err != nil {
		return r.driftFailed(ctx, rep, err)
	}
	rep.Drift, rep.Verdict, rep.CauseNote = det.drift, det.verdict, det.causeNote
	rep.Notes, rep.HiddenStacks = det.notes, det.hidden

	if r.cfg.DriftResolution != config.ResolutionNone && det.verdict.Status == model.DriftDrifted {
		rep.Resolution = r.resolveDrift(ctx, runner, aws, det)
	}
	apiErr := r.publishDrift(ctx, rep)
	return r.driftExit(rep, apiErr)
}

// detection is one detection run, classified.
type detection struct {
	drift     model.Drift // redacted
	verdict   model.RunVerdict
	causeNote string
	// hidden are the stacks whose values were hidden, positions unknown,
	// and notes say why.
	hidden []string
	notes  []string
	// tokenOverwrite are cdkd's lines (unredacted: names only are used)
	// saying a revert would overwrite a live value with a token literal.
	tokenOverwrite []cdkd.LogCause
}

// detectDrift runs `cdkd drift --json` (never --verbose: it breaks the
// JSON), decides the causes cdkd did not report, and redacts the report:
// by the assembly's positions and by value, with the secrets the state
// records of the reported stacks reference added first; and where no
// assembly gives a stack's positions, every drifted value of it is hidden.
// A run without a report is an error: exit 1 with no JSON is what today's
// cdkd does when one read fails, and that is neither drift nor clean.
func (r *driftRun) detectDrift(ctx context.Context, runner *cdkd.Runner, aws *driftAWS) (detection, error) {
	args, err := cdkd.DriftArgs(r.common(), r.cfg.StackRegion, cdkd.ResolutionNone)
	if err != nil {
		return detection{}, err
	}
	// cdkd prints one line per resource it did not compare: keep enough
	// of its stderr to read them all. The log is held back until the
	// report's secrets are known: the values at secret positions and the
	// state of the stacks it reported.
	detector := *runner
	detector.TailLines = resolutionTailLines
	res, err := r.driftResult(ctx, &detector, args)
	if err != nil {
		return detection{}, err
	}
	defer r.flushHeld()
	dr, err := cdkd.ClassifyDrift(res)
	if err == nil && r.cfg.FromJSON != "" {
		err = r.selectSavedDrift(&dr.Drift) // as driftResult chose
	}
	if err != nil {
		return detection{}, err
	}
	// The secrets the records reference are masked before anything else is
	// printed; then the causes: cdkd's own lines first, then the state
	// records (the lookups need the names before redaction).
	r.stateSecrets(ctx, aws, reportedStacks(dr.Drift))
	evidence := logEvidence(res)
	cdkd.ApplyLogCauses(&dr.Drift, evidence, r.set.Redact)
	note := r.decideCauses(ctx, aws, &dr.Drift, dr.ExitCode)
	cdkd.PlaceTokens(&dr.Drift, r.tokenCase(ctx, aws))
	unplaced := r.redactDrift(ctx, aws, &dr.Drift)
	det := detection{drift: dr.Drift, verdict: model.ClassifyRun(&dr.Drift, dr.ExitCode, cdkd.ReadsCurrentState), causeNote: note}
	for _, e := range evidence {
		if e.TokenOverwrite {
			det.tokenOverwrite = append(det.tokenOverwrite, e)
		}
	}
	det.hidden, det.notes = redact.UnplacedNotes(unplaced, r.set, r.asm != nil, noAssemblyDriftNote, "drifted values, in cdkd's state and in AWS,")
	return det, nil
}

// driftFailed reports a check that produced no report on every channel, as
// an error: never drift, never clean.
func (r *driftRun) driftFailed(ctx context.Context, rep reporters.DriftReport, err error) Outcome {
	exit := -1
	var cerr *cdkd.Error
	if errors.As(err, &cerr) {
		exit = cerr.ExitCode
		rep.StderrTail = r.redactLines(cerr.StderrTail)
	}
	rep.Error = r.failureText(err)
	rep.Verdict = model.ErrorVerdict(exit, rep.Error)
	if apiErr := r.publishDrift(ctx, rep); apiErr != nil {
		r.runner.Warning(fmt.Sprintf("could not publish the drift report: %v", apiErr))
	}
	return failed(cdkdReason(err, ReasonCdkdFailed), err)
}

// driftExit follows fail-on-drift and fail-on-incomplete; an error, a failed
// resolution or an API failure always fails.
func (r *driftRun) driftExit(rep reporters.DriftReport, apiErr error) Outcome {
	if rep.Missing != "" {
		return failed(ReasonShardFailed, errors.New(rep.Missing))
	}
	final := rep.FinalStatus()
	if res := rep.Resolution; res != nil && res.Unsuccessful() {
		reason := res.Error
		switch {
		case reason != "":
		case res.Refused() > 0 && len(res.Failed) == 0:
			reason = fmt.Sprintf("refused for %d resource(s): a revert would overwrite a live value with an ssm-secure token literal, or nothing rules that out (set drift-allow-token-overwrite: true to allow it)", res.Refused())
		default:
			reason = fmt.Sprintf("%d resource(s) were not resolved", len(res.Failed))
		}
		failure := ReasonResolutionFailed
		if r.resolveTimedOut {
			failure = ReasonTimeout
		}
		return failed(failure, fmt.Errorf("cdkd drift --%s: %s", res.Mode, reason))
	}
	if apiErr != nil {
		return failed(publishFailure(apiErr), apiErr)
	}
	switch final {
	case model.DriftError:
		reason := rep.Verdict.Reason
		if res := rep.Resolution; res != nil && res.After != nil {
			reason = "after the " + res.Mode + ": " + res.After.Reason
		} else if res != nil && res.AfterError != "" {
			reason = "after the " + res.Mode + ", drift could not be checked again: " + res.AfterError
		}
		failure := ReasonCdkdFailed
		if r.resolveTimedOut {
			failure = ReasonTimeout
		}
		return failed(failure, errors.New("cdkd drift: "+reason))
	case model.DriftDrifted:
		if r.cfg.FailOnDrift {
			return failedOn(ReasonDrift, fmt.Sprintf("cdkd drift: %s, and fail-on-drift is true", reporters.DriftTitle(rep)))
		}
	case model.DriftIncomplete:
		if r.cfg.FailOnIncomplete {
			return failedOn(ReasonIncomplete, fmt.Sprintf("cdkd drift: %s (not a clean result), and fail-on-incomplete is true", reporters.DriftTitle(rep)))
		}
	}
	return succeeded()
}
