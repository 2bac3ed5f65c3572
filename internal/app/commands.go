package app

import (
	"context"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/app/aggregate"
	"github.com/cdkd-action/cdkd-action/internal/app/deploy"
	"github.com/cdkd-action/cdkd-action/internal/app/diff"
	"github.com/cdkd-action/cdkd-action/internal/app/drift"
	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/plan"
	"github.com/cdkd-action/cdkd-action/internal/app/verify"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	sharding "github.com/cdkd-action/cdkd-action/internal/plan"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// The table of commands: each entry is everything the rest of the code
// reads about one command (its name, the inputs and flags it reads, its
// help, whether it needs cdkd, the fingerprint key or GitHub) and its Run.
// Each command is a package of its own under internal/app, given the parts
// of the Env it uses by name (its Options), as cli/cli's pkg/cmd/<command>
// are given their dependencies. No command package imports another: what
// two of them share is a package of its own. A command listed anywhere
// else fails internal/archtest.

// command is one entry of the table.
type command struct {
	config.CommandSpec
	// help says in a line what the command does, for its --help.
	help string
	// cdkd: the run locates and runs cdkd, and so needs an AWS region.
	cdkd func(config.Config) bool
	// keys: the run fingerprints its hidden values, so the
	// fingerprint key is read (or created) during discovery and masked with
	// the other secrets.
	keys func(config.Config) bool
	// assemblyStacks: the command's stacks are the cloud assembly's, so
	// each stacks pattern must match one of them before cdkd runs (nil:
	// they are not, e.g. drift's are the state's).
	assemblyStacks func(config.Config) bool
	// check refuses, before discovery, a run the command cannot do in this
	// event (nil: none).
	check func(config.Config, ghctx.Context) error
	// run runs the command in the Env and says how it ended; Env.finish
	// reports that.
	run func(ctx context.Context, e *Env) outcome.Outcome
}

// gateInputs are the inputs of the deploy gate, which deploy and verify
// both run.
var gateInputs = []string{"require-reviewed-diff", "allow-destructive", "destructive-label", "allow-destroy-types", "require-approval",
	"security-approval-label", "required-approvals", "approvers", "bot-login", "trusted-app"}

// commandTable is every command, in the order --help and messages list
// them.
var commandTable = []command{
	{
		CommandSpec: config.CommandSpec{Name: config.CommandDiff, Shardable: true,
			Inputs: []string{"base-app", "comment", "fail-on-changes", "merge-queue", "from-json", "shard", "publish"}},
		help: "diff: runs cdkd diff and reports what a deploy would change (a PR comment, a check run, a job summary; locally, the report on stdout).",
		cdkd: notFromJSON, keys: always, assemblyStacks: always,
		run: func(ctx context.Context, e *Env) outcome.Outcome { return diff.Run(ctx, e.diffOptions()) },
	},
	{
		// deploy reads from-json only to render a saved deploy report again.
		CommandSpec: config.CommandSpec{Name: config.CommandDeploy, Flags: []string{"yes", "dry-run"},
			Inputs: append([]string{"from-json", "environment", "environment-url-output"}, gateInputs...)},
		help: "deploy: runs cdkd deploy behind the gate: only the change set reviewers saw is deployed.",
		cdkd: always, keys: always, assemblyStacks: always,
		run: func(ctx context.Context, e *Env) outcome.Outcome { return deploy.Run(ctx, e.gatedOptions()) },
	},
	{
		CommandSpec: config.CommandSpec{Name: config.CommandVerify, Inputs: gateInputs,
			NeedsGitHub: "verify checks a merge queue's group against its pull requests' reviews on GitHub: run it in a workflow on merge_group, not locally"},
		help: "verify: checks a merge queue's group (on: merge_group) against its pull requests' reviews, as the deploy gate would; deploys nothing.",
		cdkd: always, keys: always, assemblyStacks: always, check: verify.CheckEvent,
		run: func(ctx context.Context, e *Env) outcome.Outcome { return verify.Run(ctx, e.gatedOptions()) },
	},
	{
		CommandSpec: config.CommandSpec{Name: config.CommandDrift, Shardable: true,
			Inputs: []string{"from-json", "cdkd-exit-code", "stack-region", "issue", "issue-labels", "fail-on-drift", "fail-on-incomplete",
				"drift-resolution", "drift-allow-token-overwrite", "shard", "publish"}},
		help: "drift: runs cdkd drift and reports drift, \"could not check\" and clean apart.",
		cdkd: notFromJSON, keys: never,
		run: func(ctx context.Context, e *Env) outcome.Outcome { return drift.Run(ctx, e.driftOptions()) },
	},
	{
		CommandSpec: config.CommandSpec{Name: config.CommandPlan, Inputs: []string{"for", "shards"}},
		help:        "plan: spreads the stacks over shards for a matrix of diff or drift jobs.",
		// A plan for drift lists the stacks cdkd's state holds; one for
		// diff reads them from the cloud assembly.
		cdkd: func(c config.Config) bool { return c.For == config.CommandDrift }, keys: never,
		// A plan for drift reads the stacks of the state.
		assemblyStacks: func(c config.Config) bool { return c.For != config.CommandDrift },
		run:            runPlan,
	},
	{
		CommandSpec: config.CommandSpec{Name: config.CommandAggregate, AsFor: true, Inputs: []string{"for", "reports", "matrix"}},
		help:        "aggregate: merges the shards' report JSON files into one review.",
		// An aggregate of diffs keys the hidden-value tokens of values hidden only
		// now, as a diff does.
		cdkd: never, keys: func(c config.Config) bool { return c.For != config.CommandDrift },
		run: runAggregate,
	},
}

func always(config.Config) bool { return true }
func never(config.Config) bool  { return false }

// notFromJSON: a saved diff or drift is rendered without cdkd.
func notFromJSON(c config.Config) bool { return c.FromJSON == "" }

// Commands are the commands the binary accepts (the table's specs), for
// the inputs to be read against.
func Commands() config.Commands {
	out := make(config.Commands, len(commandTable))
	for i, c := range commandTable {
		out[i] = c.CommandSpec
	}
	return out
}

// lookup finds the command named c in the table.
func lookup(c config.Command) (command, bool) {
	i := slices.IndexFunc(commandTable, func(x command) bool { return x.Name == c })
	if i < 0 {
		return command{}, false
	}
	return commandTable[i], true
}

// runPlan runs the plan command (package plan).
func runPlan(ctx context.Context, e *Env) outcome.Outcome {
	return plan.Run(ctx, plan.Options{
		Config: e.cfg, Assembly: e.parts.Secrets.Assembly,
		Deployed: func(ctx context.Context) ([]sharding.Deployed, error) { return plan.StateList(ctx, e.parts.Cdkd) },
		Warn:     func(msg string) { e.parts.Runner.Warning(msg) },
		Publish:  e.publish,
	})
}

// publish writes a publication to the run's targets that write no API
// object of their own (the job summary, the outputs, the report JSON;
// stdout in a local run).
func (e *Env) publish(ctx context.Context, p *publish.Publication) error {
	return e.parts.Channels.Publisher().Publish(ctx, p, e.parts.Channels.Targets()...)
}

// driftOptions are the parts the drift command uses.
func (e *Env) driftOptions() drift.Options {
	return drift.OptionsOf(e.parts, e.cfg, e.gh, e.app.Getenv)
}

// diffOptions are the parts the diff command uses.
func (e *Env) diffOptions() diff.Options {
	return diff.OptionsOf(e.parts, e.cfg, e.gh)
}

// gatedOptions are the parts a gated run (deploy, verify) uses.
func (e *Env) gatedOptions() gatecheck.Options {
	return gatecheck.OptionsOf(e.parts, e.cfg, e.gh, e.local)
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
