// Package drift is the drift command: it runs `cdkd drift`, optionally
// resolves what drifted, and reports drift, "could not check" and clean
// apart on every channel: check run, job summary, tracking issue, outputs
// and report JSON.
package drift

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cdkd-action/cdkd-action/internal/app/awsedge"
	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/fromjson"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Options are what a drift check uses, named.
type Options struct {
	Config config.Config
	GitHub ghctx.Context
	// Log is the step's log; Out its redacted stream.
	Log *workflow.Runner
	Out io.Writer
	// Secrets is the run's secret session; Cdkd the cdkd it runs.
	Secrets *session.Session
	Cdkd    *cdkdexec.Executor
	// Channels is where the report goes; AWS where state is read.
	Channels *publisher.Channels
	AWS      *awsedge.Edge
	Getenv   func(string) string
	// FromJSON is the from-json input (a saved cdkd drift --json).
	FromJSON func() *fromjson.File
}

// OptionsOf are the parts of a drift check, taken from the run's parts p;
// getenv is the run's environment.
func OptionsOf(p *parts.Parts, cfg config.Config, gh ghctx.Context, getenv func(string) string) Options {
	return Options{Config: cfg, GitHub: gh, Log: p.Runner, Out: p.Out, Secrets: p.Secrets, Cdkd: p.Cdkd,
		Channels: p.Channels, AWS: p.AWS, Getenv: getenv, FromJSON: p.FromJSON}
}

// run is one drift check: what it uses, and what it keeps for itself.
type run struct {
	Options
	// resolveTimedOut is set when timeout-minutes stopped a drift
	// resolution or the detection after it.
	resolveTimedOut bool
}

// Run checks for drift and reports it.
func Run(ctx context.Context, o Options) outcome.Outcome {
	return (&run{Options: o}).check(ctx)
}

// Report publishes a drift report (the aggregate's of its shards) and
// says how the run ends, as a check of its own does.
func Report(ctx context.Context, o Options, rep reporters.DriftReport) outcome.Outcome {
	r := &run{Options: o}
	return r.exit(rep, r.publish(ctx, rep))
}

func (r *run) check(ctx context.Context) outcome.Outcome {
	rep := reporters.DriftReport{
		Label:          r.Config.Label,
		SHA:            r.GitHub.SHA,
		RunURL:         r.GitHub.RunURL,
		FullReportHint: r.Channels.FullReportHint(),
		Shard:          publisher.ShardRef(r.Config.Shard),
	}
	// Drift does not synthesize: a cdk.out in the working directory now
	// was left by an earlier step. Its positions and secrets are known
	// before cdkd prints anything.
	r.Secrets.LateAssembly(ctx)
	aws := r.newDriftAWS(ctx)
	checked, err := r.stacksInState(ctx, aws)
	if err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	r.stateSecrets(ctx, aws, r.namedStacks(ctx, aws))
	runner := r.Cdkd.Runner()
	var det detection
	if err = r.Cdkd.Unusable(); err == nil {
		det, err = r.detectDrift(ctx, runner, aws)
	}
	if err == nil && !checked {
		err = r.stacksInReport(det.drift)
	}
	// The version, asked alongside the drift check.
	version, verr := r.Cdkd.Version(ctx, runner)
	switch {
	case cdkdexec.Unusable(verr):
		err = verr // a hung --version: cdkd is hung
	case verr != nil:
		version = "" // an old or odd --version does not stop the check
	}
	rep.CdkdVersion, rep.CdkdSource = version, r.Cdkd.Source()
	if config.IsInputError(err) {
		// Bad input (a saved file that is not cdkd drift --json) posts
		// nothing, as for diff: the summary and the log say why.
		return outcome.Failed(reason.BadInput, err)
	}
	if err != nil {
		return r.driftFailed(ctx, rep, err)
	}
	rep.Drift, rep.Verdict, rep.CauseNote = det.drift, det.verdict, det.causeNote
	rep.Notes, rep.HiddenStacks = det.notes, det.hidden

	if r.Config.DriftResolution != config.ResolutionNone && det.verdict.Status == model.DriftDrifted {
		rep.Resolution = r.resolveDrift(ctx, runner, aws, det)
	}
	apiErr := r.publish(ctx, rep)
	return r.exit(rep, apiErr)
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
func (r *run) detectDrift(ctx context.Context, runner *cdkd.Runner, aws *driftAWS) (detection, error) {
	args, err := cdkd.DriftArgs(r.Cdkd.Common(), r.Config.StackRegion, cdkd.ResolutionNone)
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
	defer r.Cdkd.FlushHeld()
	dr, err := cdkd.ClassifyDrift(res)
	if err == nil && r.Config.FromJSON != "" {
		err = fromjson.SelectDrift(r.Config.FromJSON, r.Config.Stacks, &dr.Drift) // as driftResult chose
	}
	if err != nil {
		return detection{}, err
	}
	// The secrets the records reference are known (redacted and masked) before anything else is
	// printed; then the causes: cdkd's own lines first, then the state
	// records (the lookups need the names before redaction).
	r.stateSecrets(ctx, aws, reportedStacks(dr.Drift))
	evidence := logEvidence(res)
	cdkd.ApplyLogCauses(&dr.Drift, evidence, r.Secrets.Set.Redact)
	note := r.decideCauses(ctx, aws, &dr.Drift, dr.ExitCode)
	cdkd.PlaceTokens(&dr.Drift, r.tokenCase(ctx, aws))
	unplaced := r.redactDrift(ctx, aws, &dr.Drift)
	det := detection{drift: dr.Drift, verdict: model.ClassifyRun(&dr.Drift, dr.ExitCode, cdkd.ReadsCurrentState), causeNote: note}
	for _, e := range evidence {
		if e.TokenOverwrite {
			det.tokenOverwrite = append(det.tokenOverwrite, e)
		}
	}
	det.hidden, det.notes = redact.UnplacedNotes(unplaced, r.Secrets.Set, r.Secrets.Assembly != nil, noAssemblyDriftNote, "drifted values, in cdkd's state and in AWS,")
	// A secret the template also writes in public is said here too.
	det.notes = append(det.notes, redact.OracleNotes(r.Secrets.Set, r.Secrets.SecretAssembly())...)
	return det, nil
}

// driftFailed reports a check that produced no report on every channel, as
// an error: never drift, never clean.
func (r *run) driftFailed(ctx context.Context, rep reporters.DriftReport, err error) outcome.Outcome {
	exit := -1
	var cerr *cdkd.Error
	if errors.As(err, &cerr) {
		exit = cerr.ExitCode
		rep.StderrTail = r.Secrets.RedactLines(cerr.StderrTail)
	}
	rep.Error = r.Cdkd.FailureText(err)
	rep.Verdict = model.ErrorVerdict(exit, rep.Error)
	if apiErr := r.publish(ctx, rep); apiErr != nil {
		r.Log.Warning(fmt.Sprintf("could not publish the drift report: %v", apiErr))
	}
	return outcome.Failed(outcome.CdkdReason(err, reason.CdkdFailed), err)
}

// exit follows fail-on-drift and fail-on-incomplete; an error, a failed
// resolution or an API failure always fails.
func (r *run) exit(rep reporters.DriftReport, apiErr error) outcome.Outcome {
	if rep.Missing != "" {
		return outcome.Failed(reason.ShardFailed, errors.New(rep.Missing))
	}
	final := rep.FinalStatus()
	if res := rep.Resolution; res != nil && res.Unsuccessful() {
		why := res.Error
		switch {
		case why != "":
		case res.Refused() > 0 && len(res.Failed) == 0:
			why = fmt.Sprintf("refused for %d resource(s): a revert would overwrite a live value with an ssm-secure token literal, or nothing rules that out (set drift-allow-token-overwrite: true to allow it)", res.Refused())
		default:
			why = fmt.Sprintf("%d resource(s) were not resolved", len(res.Failed))
		}
		failure := reason.ResolutionFailed
		if r.resolveTimedOut {
			failure = reason.Timeout
		}
		return outcome.Failed(failure, fmt.Errorf("cdkd drift --%s: %s", res.Mode, why))
	}
	if apiErr != nil {
		return outcome.Failed(outcome.PublishFailure(apiErr), apiErr)
	}
	switch final {
	case model.DriftError:
		why := rep.Verdict.Reason
		if res := rep.Resolution; res != nil && res.After != nil {
			why = "after the " + res.Mode + ": " + res.After.Reason
		} else if res != nil && res.AfterError != "" {
			why = "after the " + res.Mode + ", drift could not be checked again: " + res.AfterError
		}
		failure := reason.CdkdFailed
		if r.resolveTimedOut {
			failure = reason.Timeout
		}
		return outcome.Failed(failure, errors.New("cdkd drift: "+why))
	case model.DriftDrifted:
		if r.Config.FailOnDrift {
			return outcome.FailedOn(reason.Drift, fmt.Sprintf("cdkd drift: %s, and fail-on-drift is true", reporters.DriftTitle(rep)))
		}
	case model.DriftIncomplete:
		if r.Config.FailOnIncomplete {
			return outcome.FailedOn(reason.Incomplete, fmt.Sprintf("cdkd drift: %s (not a clean result), and fail-on-incomplete is true", reporters.DriftTitle(rep)))
		}
	}
	return outcome.Succeeded()
}
