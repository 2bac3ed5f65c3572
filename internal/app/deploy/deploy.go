// Package deploy is the deploy command: it runs `cdkd deploy`, but only
// when the change set is the one the pull request's reviewers saw (package
// gatecheck, over package gate), reads back what the deploy did, records
// the fingerprints of the secret values it applied, and reports on every
// channel: the deployment, the deploy section of the review comment, the
// check run, the job summary, the outputs and the report JSON.
package deploy

import (
	"context"
	"sync"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// deployKillGrace is how long cdkd gets, after SIGINT, to release its
// lock. The runner escalates about 10 seconds after it cancels a job; this
// leaves time to report.
const deployKillGrace = 4 * time.Second

// run is one deploy: the gate's check, and what the deploy adds to it.
type run struct {
	*gatecheck.Check
	envURL string
	// dryRunArgs is the cdkd deploy a --dry-run would have run (nil: the
	// gate did not get that far).
	dryRunArgs []string

	// deployment is the GitHub deployment started before cdkd deploy ran
	// (nil: none).
	deployment *publish.Deployment

	// plan is which stacks cdkd deploy is given.
	plan plan

	// maskMu serialises registering masks while stacks are read back in
	// parallel.
	maskMu sync.Mutex
	// noEvents says, per stack (name NUL region), why this deploy's events of it
	// are unknown: its secret positions' fingerprints cannot be recorded.
	noEvents   map[string]string
	noEventsMu sync.Mutex
}

// Run deploys the change set the gate lets through and reports it.
func Run(ctx context.Context, o gatecheck.Options) outcome.Outcome {
	d := &run{Check: gatecheck.New(&o)}
	if dec, ok := d.Decide(ctx); ok {
		d.apply(ctx, dec)
	}
	d.Redact()
	if o.Config.CLI.DryRun {
		if out, done := d.dryRun(ctx); done {
			return out
		}
	}
	return d.finish(ctx)
}

// deployTargets are the stacks of the change set, for force-unlock.
func deployTargets(cur *gate.Current) []cdkd.Target {
	if cur == nil {
		return nil
	}
	var out []cdkd.Target
	for _, s := range cur.Diff.Stacks {
		out = append(out, cdkd.Target{Stack: s.Stack, Region: s.Region})
	}
	return out
}

// finish publishes the report and sets the outputs.
func (d *run) finish(ctx context.Context) outcome.Outcome {
	return d.FinishWith(ctx, d.publish)
}

// deployedOutput is the deployed output: true, false, or partial when cdkd
// changed some resources before it stopped (exit 2, a timeout, a
// cancellation, a kill, a failure), or may have and it is not known:
// saying false then would hide that the stacks are no longer what they
// were.
func deployedOutput(rep reporters.DeployReport) string {
	switch rep.Outcome {
	case reporters.OutcomeDeployed:
		return "true"
	case reporters.OutcomePartial, reporters.OutcomeCancelled, reporters.OutcomeFailed:
		// Stopped, killed or failed midway: false only when nothing is
		// known to have changed, and nothing could have unseen.
		for _, s := range rep.Stacks {
			if s.Created+s.Updated+s.Deleted > 0 || s.ChangesUnknown {
				return "partial"
			}
		}
	}
	return "false"
}
