package drift

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
)

// noAssemblyDriftNote tells a reader of the drift report why every value
// shows as ***.
const noAssemblyDriftNote = "Values hidden: no cloud assembly was found (the app input is not one, and the working directory has no cdk.out), " +
	"so NoEcho positions are unknown — pass the synthesized assembly as app to see them. " +
	"Every drifted value, in cdkd's state and in AWS, shows as ***; the paths that drifted still show."

// driftStack names a stack whose state record may hold secret references.
type driftStack struct{ name, region string }

// namedStacks are the stacks the stacks input names, before cdkd runs.
// With all or a wildcard no name is known before cdkd reports; then every
// stack with a record in the state bucket is listed instead (knowing
// before printing), and what cannot be listed is a warning: cdkd's log is
// held back until its report names the stacks (see runCdkdHeld).
func (r *run) namedStacks(ctx context.Context, aws *driftAWS) []driftStack {
	var out []driftStack
	wildcard := r.Config.All
	for _, s := range r.Config.Stacks {
		if strings.ContainsAny(s, "*?") {
			wildcard = true
		} else if !r.Config.All {
			out = append(out, driftStack{name: s})
		}
	}
	if wildcard && aws.resolver != nil {
		out = append(out, r.storedStacks(ctx, aws)...)
	}
	return out
}

// stateLister lists the stacks with a state record (awsx.StateReader).
type stateLister interface {
	List(ctx context.Context, bucket, prefix string) ([]awsx.StackRecord, error)
}

// storedStacks lists every stack with a record in the state bucket.
func (r *run) storedStacks(ctx context.Context, aws *driftAWS) []driftStack {
	l, ok := aws.lister.(stateLister)
	if !ok || r.AWS.StateBucket(ctx) == "" {
		return nil
	}
	records, err := l.List(ctx, r.AWS.StateBucket(ctx), r.Config.StatePrefix)
	if err != nil {
		r.Log.Warning(fmt.Sprintf("could not list the stacks in the state bucket to mask what their records hold before cdkd runs: %v; cdkd's log is held back until its report names the stacks", err))
		return nil
	}
	out := make([]driftStack, 0, len(records))
	for _, rec := range records {
		out = append(out, driftStack{name: rec.Stack, region: rec.Region})
	}
	return out
}

// reportedStacks are the stacks of cdkd's report, by the names it gives.
func reportedStacks(d model.Drift) []driftStack {
	out := make([]driftStack, 0, len(d.Stacks))
	for _, s := range d.Stacks {
		out = append(out, driftStack{name: s.Stack, region: s.Region})
	}
	return out
}

// stateSecrets reads the state records of these stacks, resolves every
// {{resolve:...}} reference they hold, and adds the secret values to the
// redactor and the runner's masks. Drift does not synthesize: without an
// assembly, discovery knew no stack, so the records are the only place
// the references are written. Discovery's own code does the work, given
// the stacks by name alone (no positions). What it could not read is a
// warning, printed after the masks.
func (r *run) stateSecrets(ctx context.Context, aws *driftAWS, stacks []driftStack) {
	src, _ := aws.stateSource()
	if src == nil || aws.resolver == nil || len(stacks) == 0 {
		return
	}
	known := &assembly.Assembly{}
	for _, s := range stacks {
		known.Stacks = append(known.Stacks, assembly.Stack{Name: s.name, Region: s.region})
	}
	in := discover.Input{
		Assembly:       known,
		DefaultRegion:  r.AWS.DefaultRegion(),
		StateBucket:    r.AWS.StateBucket(ctx),
		StatePrefix:    r.Config.StatePrefix,
		Getenv:         r.Getenv,
		ResolveSecrets: true,
	}
	warnings := discover.Discover(ctx, r.Secrets.Set, in, discover.Deps{State: src, Resolver: aws.resolver})
	r.Secrets.RegisterMasks()
	r.Secrets.WarnDiscovery(warnings)
}

// stateLookup reads, through the run's shared reads, the state record of
// a stack cdkd reported: nil when it cannot be read.
func (r *run) stateLookup(ctx context.Context, aws *driftAWS) redact.StateLookup {
	src, _ := aws.stateSource()
	if src == nil || r.AWS.StateBucket(ctx) == "" {
		return nil
	}
	return func(stack, region string) *awsx.State {
		if region == "" {
			region = r.AWS.DefaultRegion()
		}
		st, err := src.Read(ctx, r.AWS.StateBucket(ctx), r.Config.StatePrefix, stack, region)
		if err != nil {
			return nil
		}
		return st
	}
}

// redactDrift redacts a drift report in place, fail closed (see
// redact.Drift), registers, before anything else is printed, the values it
// hid by position, which it added to the redactor, and returns what it
// could not place.
func (r *run) redactDrift(ctx context.Context, aws *driftAWS, d *model.Drift) []redact.Unplaced {
	red := redact.Drift(d, redact.Input{Set: r.Secrets.Set, Positions: r.Secrets.Positions(), State: r.stateLookup(ctx, aws), Leaves: true})
	r.Secrets.RegisterMasks()
	r.Secrets.WarnDiscovery(discover.ShortWarnings(r.Secrets.Set))
	return red.Unplaced
}
