package app

import (
	"context"

	"github.com/cdkd-action/cdkd-action/internal/app/aggregate"
	"github.com/cdkd-action/cdkd-action/internal/app/deploy"
	"github.com/cdkd-action/cdkd-action/internal/app/diff"
	"github.com/cdkd-action/cdkd-action/internal/app/drift"
	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/plan"
	"github.com/cdkd-action/cdkd-action/internal/app/verify"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	sharding "github.com/cdkd-action/cdkd-action/internal/plan"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// The wiring: each command is a package of its own under internal/app,
// given the parts of the Env it uses by name (its Options), as cli/cli's
// pkg/cmd/<command> are given their dependencies. No command package
// imports another: what two of them share is a package of its own.

// command runs one of cdkd-action's commands in the Env and says how it
// ended; Env.finish reports that.
type command func(ctx context.Context, e *Env) outcome.Outcome

// commands maps the command input to its command.
var commands = map[config.Command]command{
	config.CommandDiff:      func(ctx context.Context, e *Env) outcome.Outcome { return diff.Run(ctx, e.diffOptions()) },
	config.CommandDrift:     func(ctx context.Context, e *Env) outcome.Outcome { return drift.Run(ctx, e.driftOptions()) },
	config.CommandDeploy:    func(ctx context.Context, e *Env) outcome.Outcome { return deploy.Run(ctx, e.gatedOptions()) },
	config.CommandVerify:    func(ctx context.Context, e *Env) outcome.Outcome { return verify.Run(ctx, e.gatedOptions()) },
	config.CommandPlan:      runPlan,
	config.CommandAggregate: runAggregate,
}

// runPlan runs the plan command (package plan).
func runPlan(ctx context.Context, e *Env) outcome.Outcome {
	return plan.Run(ctx, plan.Options{
		Config: e.cfg, Assembly: e.parts.Secrets.Assembly,
		Deployed: func(ctx context.Context) ([]sharding.Deployed, error) { return plan.StateList(ctx, e.parts.Cdkd) },
		Warn:     func(msg string) { e.parts.Runner.Warning(msg) },
		Publish: func(ctx context.Context, p *publish.Publication) error {
			return e.parts.Channels.Publisher().Publish(ctx, p, e.parts.Channels.Targets()...)
		},
	})
}

// driftOptions are the parts the drift command uses.
func (e *Env) driftOptions() drift.Options {
	return drift.Options{Config: e.cfg, GitHub: e.gh, Log: e.parts.Runner, Out: e.parts.Out, Secrets: e.parts.Secrets, Cdkd: e.parts.Cdkd,
		Channels: e.parts.Channels, AWS: e.parts.AWS, Getenv: e.app.Getenv, FromJSON: e.parts.FromJSON}
}

// diffOptions are the parts the diff command uses.
func (e *Env) diffOptions() diff.Options {
	return diff.Options{Config: e.cfg, GitHub: e.gh, Log: e.parts.Runner, Secrets: e.parts.Secrets, Cdkd: e.parts.Cdkd, Channels: e.parts.Channels, AWS: e.parts.AWS,
		ChangeSets: e.parts.ChangeSets(), Fingerprints: e.fingerprints()}
}

// gatedOptions are the parts a gated run (deploy, verify) uses.
func (e *Env) gatedOptions() gatecheck.Options {
	return gatecheck.Options{Config: e.cfg, GitHub: e.gh, Local: e.local, Log: e.parts.Runner, Out: e.parts.Out, Secrets: e.parts.Secrets, Cdkd: e.parts.Cdkd,
		Channels: e.parts.Channels, AWS: e.parts.AWS, ChangeSets: e.parts.ChangeSets(), Fingerprints: e.fingerprints()}
}

// runAggregate runs the aggregate command; the merged reports end as the
// diff's or the drift's own, with the run made that command.
func runAggregate(ctx context.Context, e *Env) outcome.Outcome {
	return aggregate.Run(ctx, aggregate.Options{
		Config: e.cfg, GitHub: e.gh, Log: e.parts.Runner, Secrets: e.parts.Secrets.Set, Fingerprints: e.fingerprints(),
		FullReportHint: e.parts.Channels.FullReportHint(),
		AsCommand:      func(c config.Command) { e.cfg.Command = c },
		NewDiffReport:  func() reporters.DiffReport { return diff.NewReport(e.diffOptions(), "") },
		ReportDiff: func(ctx context.Context, rep reporters.DiffReport, d model.Diff) outcome.Outcome {
			return diff.Report(ctx, e.diffOptions(), rep, d)
		},
		ReportDrift: func(ctx context.Context, rep reporters.DriftReport) outcome.Outcome {
			return drift.Report(ctx, e.driftOptions(), rep)
		},
	})
}
