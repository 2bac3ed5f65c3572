package drift

import (
	"context"
	"errors"
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// resolutionTailLines is how much of a resolution's stderr is kept: a
// partial --revert names each resource it could not revert there.
const resolutionTailLines = 1000

// resolveDrift runs `cdkd drift --accept|--revert -y` after a detection
// that found drift, then detects once more: with these flags exit 0 means
// the run completed, not that everything was compared, and today's cdkd
// reports an immutable property (an SQS queue's name) as reverted when
// nothing changed. Only the second detection says what is still drifted.
//
// A revert runs its --dry-run plan first: `-y` skips the warnings the seed
// puts before the prompt, and a resource whose live value the plan says
// would be overwritten with a token literal is not reverted unless
// drift-allow-token-overwrite says so. What each resource became is read
// from cdkd's own lines, never assumed from the detection. The report is
// redacted once, when the resolution is over (see redact.Resolution).
func (r *run) resolveDrift(ctx context.Context, runner *cdkd.Runner, aws *driftAWS, det detection) *reporters.ResolutionReport {
	rr := r.resolve(ctx, runner, aws, det)
	redact.Resolution(rr, r.Secrets.Set)
	return rr
}

// resolve is resolveDrift before redaction.
func (r *run) resolve(ctx context.Context, runner *cdkd.Runner, aws *driftAWS, det detection) *reporters.ResolutionReport {
	mode := string(r.Config.DriftResolution)
	rr := &reporters.ResolutionReport{Mode: mode}
	detected := det.drift
	for _, s := range detected.Stacks {
		for _, d := range s.Drifted {
			rr.Resources = append(rr.Resources, s.Stack+"/"+d.LogicalID)
		}
	}
	resolver := *runner
	resolver.TailLines = resolutionTailLines
	common := r.Cdkd.Common()
	var refused []model.ResolvedResource
	if mode == cdkd.ResolutionRevert {
		plan, err := r.revertPlan(ctx, &resolver, aws, common)
		if err != nil {
			rr.Error = "the --dry-run plan did not complete, so its warnings are unknown and nothing was reverted: " + err.Error()
			return rr
		}
		rr.Warnings = plan.Warnings
		rr.PlanText = r.resolutionText(plan.Lines, detected, det.hidden)
		refused = cdkd.TokenRefusals(detected, append(plan.TokenOverwrite, logRefusals(det.tokenOverwrite)...), r.tokenCase(ctx, aws))
		if len(refused) > 0 && !r.Config.AllowTokenOverwrite {
			var keep []string
			refused, keep = model.RefuseWholeStacks(detected, refused)
			rr.Outcomes = append(rr.Outcomes, refused...)
			if len(keep) == 0 {
				return rr
			}
			common.Stacks, common.All = keep, false
		}
	}
	args, err := cdkd.DriftArgs(common, r.Config.StackRegion, mode)
	if err != nil {
		rr.Error = err.Error()
		return rr
	}
	res, err := r.Cdkd.RunVia(ctx, &resolver, args, redact.FilterPlan)
	ran := err == nil || res.ExitCode >= 0
	if res.TimedOut {
		r.resolveTimedOut = true
		ran = false // stopped midway: detecting again would only wait for the same bound
	}
	// A stopped or killed resolution may have left its lock held.
	lockNote := cdkd.LockState(res, driftTargets(detected))
	var cerr *cdkd.Error
	if errors.As(err, &cerr) {
		cerr.Lock = lockNote
	}
	r.learnResolution(ctx, aws, res.Stdout)
	var out cdkd.DriftResolution
	if err == nil {
		out, err = cdkd.ClassifyDriftResolution(res, mode)
	}
	for _, f := range out.Failed {
		rr.Failed = append(rr.Failed, reporters.ResolutionFailure{Resource: f.Resource, Line: f.Line})
	}
	rr.Summary = out.Summary
	rr.Output = r.resolutionText(out.Output.Lines, detected, det.hidden)
	rr.Outcomes = append(rr.Outcomes, model.WithUnreported(detected, out.Output.Resources, refused)...)
	if err != nil {
		rr.Error = err.Error()
		if lockNote != "" && cerr == nil {
			rr.Error += " " + lockNote
		}
	}
	if out.Partial && len(rr.Failed) == 0 {
		// cdkd exited 2 without a line we recognise: still a failure.
		var cerr *cdkd.Error
		reason := cdkd.LastErrorLine(res.StderrTail)
		if errors.As(err, &cerr) {
			reason = cerr.Reason
		}
		if reason == "" {
			reason = "cdkd exited 2: some resources did not revert"
		}
		rr.Failed = append(rr.Failed, reporters.ResolutionFailure{Line: reason})
	}
	if !ran || ctx.Err() != nil {
		return rr
	}
	aws.forget() // the resolution may have rewritten the records
	after, err := r.detectDrift(ctx, runner, aws)
	if errors.Is(err, cdkd.ErrTimeout) {
		r.resolveTimedOut = true
	}
	if err != nil {
		rr.AfterError = err.Error()
		return rr
	}
	rr.After, rr.AfterDrift = &after.verdict, after.drift
	return rr
}

// driftTargets are the stacks a resolution worked on, for force-unlock.
func driftTargets(d model.Drift) []cdkd.Target {
	var out []cdkd.Target
	for _, s := range d.Stacks {
		out = append(out, cdkd.Target{Stack: s.Stack, Region: s.Region})
	}
	return out
}

// revertPlan runs `cdkd drift --revert --dry-run` (no lock, no AWS write)
// and reads its plan: warnings, token literals, value lines.
func (r *run) revertPlan(ctx context.Context, runner *cdkd.Runner, aws *driftAWS, common cdkd.Common) (cdkd.ResolutionOutput, error) {
	args, err := cdkd.DriftDryRunArgs(common, r.Config.StackRegion, cdkd.ResolutionRevert)
	if err != nil {
		return cdkd.ResolutionOutput{}, err
	}
	res, err := r.Cdkd.RunVia(ctx, runner, args, redact.FilterPlan)
	if res.TimedOut {
		r.resolveTimedOut = true // the step fails with timeout, not as a failed resolution
	}
	r.learnResolution(ctx, aws, res.Stdout)
	if err != nil {
		return cdkd.ResolutionOutput{}, err
	}
	out, err := cdkd.ClassifyDriftResolution(res, cdkd.ResolutionRevert)
	if err != nil {
		return cdkd.ResolutionOutput{}, err
	}
	if res.ExitCode != 0 {
		return cdkd.ResolutionOutput{}, errors.New("cdkd drift --revert --dry-run exited " + strconv.Itoa(res.ExitCode))
	}
	return out.Output, nil
}

// learnResolution learns, before a resolution's text is shown, the values
// its own JSON (cdkd detects again first) holds at secret positions: a
// live value may have changed since the detection, and the plan prints it.
// Without JSON there is nothing to learn; the text's values are hidden by
// position all the same (redact.PlanText).
func (r *run) learnResolution(ctx context.Context, aws *driftAWS, stdout []byte) {
	d, err := cdkd.DecodeDrift(stdout)
	if err != nil {
		return
	}
	r.redactDrift(ctx, aws, &d)
}

// logRefusals turns the detection's warnings into refusals.
func logRefusals(lines []cdkd.LogCause) []model.ResolvedResource {
	out := make([]model.ResolvedResource, 0, len(lines))
	for _, l := range lines {
		out = append(out, model.ResolvedResource{LogicalID: l.LogicalID, Type: l.Type, Outcome: model.ResolutionRefused, Reason: l.Reason})
	}
	return out
}
