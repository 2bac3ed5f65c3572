package app

import (
	"context"
	"errors"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// resolutionTailLines is how much of a resolution's stderr is kept: a
// partial --revert names each resource it could not revert there.
const resolutionTailLines = 1000

// resolveDrift runs `cdkd drift --accept|--revert -y` after a detection
// that found drift, then detects once more: with these flags exit 0 means
// the run completed, not that everything was compared, and today's cdkd
// reports an immutable property (an SQS queue's name) as reverted when
// nothing changed. Only the second detection says what is still drifted.
func (r *run) resolveDrift(ctx context.Context, runner *cdkd.Runner, aws *driftAWS, detected model.Drift) *reporters.ResolutionReport {
	mode := string(r.cfg.DriftResolution)
	rr := &reporters.ResolutionReport{Mode: mode}
	for _, s := range detected.Stacks {
		for _, d := range s.Drifted {
			rr.Resources = append(rr.Resources, s.Stack+"/"+d.LogicalID)
		}
	}
	args, err := cdkd.DriftArgs(r.common(), r.cfg.StackRegion, mode)
	if err != nil {
		rr.Error = r.set.OneLine(err.Error())
		return rr
	}
	resolver := *runner
	resolver.TailLines = resolutionTailLines
	res, err := r.runCdkd(ctx, &resolver, args)
	ran := err == nil || res.ExitCode >= 0
	var out cdkd.DriftResolution
	if err == nil {
		out, err = cdkd.ClassifyDriftResolution(res, mode)
	}
	for _, f := range out.Failed {
		rr.Failed = append(rr.Failed, reporters.ResolutionFailure{Resource: r.set.Redact(f.Resource), Line: r.set.Redact(f.Line)})
	}
	rr.Summary = r.redactLines(out.Summary)
	if err != nil {
		rr.Error = r.set.OneLine(err.Error())
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
		rr.Failed = append(rr.Failed, reporters.ResolutionFailure{Line: r.set.Redact(reason)})
	}
	if !ran || ctx.Err() != nil {
		return rr
	}
	aws.forget() // the resolution may have rewritten the records
	after, err := r.detectDrift(ctx, runner, aws)
	if err != nil {
		rr.AfterError = r.set.OneLine(err.Error())
		return rr
	}
	rr.After, rr.AfterDrift = &after.verdict, after.drift
	return rr
}
