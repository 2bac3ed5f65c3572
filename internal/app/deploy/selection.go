package deploy

import (
	"context"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/changeset"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// selection is what cdkd deploy is given for the verified change set d:
// the stacks it changes and the importers deployed with them
// (changeset.Select), said in the report and the log. When a changed
// stack cannot be named, the deploy falls back to the inputs' selection
// and warns: every stack the diff covered is then deployed, as cdkd deploy
// --all (or the stacks input) does.
func (d *run) selection(ctx context.Context, diff model.Diff) *changeset.Selection {
	r := d.Opts
	sel := changeset.Select(r.Secrets.Assembly, diff)
	var secret []string
	for _, s := range diff.Stacks {
		// cdkd's diff cannot show every change of a secret value (a
		// NoEcho value its state stores as ***): a stack with secret
		// positions is deployed, so that the values reach AWS and their
		// fingerprints are recorded from its events.
		if !slices.Contains(sel.Stacks, s.Stack) && !strings.Contains(s.Stack, secrets.Replacement) && d.hasSecretPositions(ctx, s.Stack, s.Region) {
			secret = append(secret, s.Stack)
		}
	}
	if len(secret) > 0 {
		sel.Stacks = slices.Sorted(slices.Values(append(sel.Stacks, secret...)))
		note := "Deployed although cdkd's diff shows no change in it, since a secret value it holds may have changed where that diff cannot show it: " + strings.Join(secret, ", ") + "."
		d.Rep.Message = strings.TrimSpace(d.Rep.Message + " " + note)
		r.Log.Notice(note)
	}
	if sel.Unnamed != "" {
		w := "cdkd deploy is given the stacks input's selection, not the list of changed stacks: " + sel.Unnamed + "; stacks without changes are deployed too."
		d.Rep.Warnings = append(d.Rep.Warnings, w)
		r.Log.Warning(w)
		return &sel
	}
	if note := sel.Names(); note != "" {
		d.Rep.Message = strings.TrimSpace(d.Rep.Message + " " + note)
		r.Log.Notice(note)
	}
	if w := sel.NotDeployed(); w != "" {
		d.Rep.Warnings = append(d.Rep.Warnings, w)
		r.Log.Warning(w)
	}
	return &sel
}

// plan is which stacks cdkd deploy is given.
type plan struct {
	// sel is the stacks the verified change set changes and the importers
	// deployed with them (nil: the gate did not let the deploy through).
	sel *changeset.Selection
	// nothing is set when the change set changes no stack: no cdkd deploy
	// runs (nor would a --dry-run's).
	nothing bool
}

// deploys reports whether cdkd deploy was given the stack: every stack when
// the deploy fell back to the inputs' selection.
func (p plan) deploys(stack string) bool {
	if p.sel == nil || p.sel.Unnamed != "" {
		return true
	}
	for _, s := range p.sel.Stacks {
		if s == stack {
			return true
		}
	}
	return false
}

// nothingToDeploy reports a verified change set that changes no stack: no
// cdkd deploy runs (it would only write a run into each stack's history),
// and every stack is reported unchanged.
func (d *run) nothingToDeploy(cur *gate.Current) {
	msg := "Nothing to deploy: the change set changes no stack, so cdkd deploy did not run."
	d.plan.nothing = true
	if d.Opts.Config.CLI.DryRun {
		msg = "Nothing to deploy: the change set changes no stack, so cdkd deploy would not run."
	}
	d.Rep.Outcome = reporters.OutcomeDeployed
	d.Rep.Message = strings.TrimSpace(d.Rep.Message + " " + msg)
	d.Opts.Log.Notice(msg)
	for _, t := range targets(cur, nil) {
		d.Rep.Stacks = append(d.Rep.Stacks, reporters.DeployedStack{Stack: t.name, Region: t.region, Note: unchangedNote})
	}
}

// unchangedNote is what the report says of a stack the deploy left alone.
const unchangedNote = "Unchanged: no changes in the reviewed change set, so not deployed."

// targets are the stacks of cur cdkd deploy was given, for what is said
// of their locks.
func (p plan) targets(cur *gate.Current) []cdkd.Target {
	var out []cdkd.Target
	for _, t := range deployTargets(cur) {
		if p.deploys(t.Stack) {
			out = append(out, t)
		}
	}
	return out
}

// urlMayBeIn reports whether environment-url-output (name) may name an
// output of stack: "Stack.Key" names one stack, "Key" any.
func urlMayBeIn(name, stack string) bool {
	if name == "" {
		return false
	}
	s, _, ok := strings.Cut(name, ".")
	return !ok || s == stack
}
