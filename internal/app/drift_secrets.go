package app

import (
	"context"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
)

// noAssemblyDriftNote tells a reader of the drift report why every value
// shows as ***.
const noAssemblyDriftNote = "Values hidden: no cloud assembly was found (the app input is not one, and the working directory has no cdk.out), " +
	"so NoEcho positions are unknown — pass the synthesized assembly as app to see them. " +
	"Every drifted value, in cdkd's state and in AWS, shows as ***; the paths that drifted still show."

// driftStack names a stack whose state record may hold secret references.
type driftStack struct{ name, region string }

// namedStacks are the stacks the stacks input names, before cdkd runs:
// with all or a wildcard the names are known only from cdkd's report.
func (r *run) namedStacks() []driftStack {
	if r.cfg.All {
		return nil
	}
	var out []driftStack
	for _, s := range r.cfg.Stacks {
		if !strings.ContainsAny(s, "*?") {
			out = append(out, driftStack{name: s})
		}
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
		DefaultRegion:  r.defaultRegion(),
		StateBucket:    r.stateBucket(),
		StatePrefix:    r.cfg.StatePrefix,
		Getenv:         r.app.Getenv,
		ResolveSecrets: true,
	}
	warnings := discover.Discover(ctx, r.set, in, discover.Deps{State: src, Resolver: aws.resolver})
	r.registerMasks()
	r.warnDiscovery(warnings)
}

// unknownPositions lists, by index, the stacks of d whose secret
// positions no assembly gives: r.asm is nil, or it has no such stack.
// Call it before redaction renames anything.
func (r *run) unknownPositions(d model.Drift) map[int]bool {
	out := map[int]bool{}
	for i, s := range d.Stacks {
		if r.asm == nil {
			out[i] = true
			continue
		}
		var ok bool
		if s.Region != "" {
			_, ok = r.asm.StackIn(s.Stack, s.Region)
		} else {
			_, ok = r.asm.Stack(s.Stack)
		}
		if !ok {
			out[i] = true
		}
	}
	return out
}

// hideValues hides every drifted value, in state and in AWS, of the stacks
// whose positions are unknown: today's cdkd prints a NoEcho value in
// plaintext, and without positions nothing says which one it is. When in
// doubt, redact. Absence and null stay visible, and so do the paths. It
// returns the stacks (as d names them, redacted) whose values it hid and
// the note that says why.
func (r *run) hideValues(d *model.Drift, unknown map[int]bool) (hidden []string, note string) {
	for i := range d.Stacks {
		if !unknown[i] {
			continue
		}
		s := &d.Stacks[i]
		some := false
		for j := range s.Drifted {
			for k := range s.Drifted[j].Changes {
				c := &s.Drifted[j].Changes[k]
				c.State, c.AWS = maskValue(c.State), maskValue(c.AWS)
				some = true
			}
		}
		if some {
			hidden = append(hidden, s.Stack)
		}
	}
	switch {
	case len(hidden) == 0:
		return nil, ""
	case r.asm == nil:
		return hidden, noAssemblyDriftNote
	}
	what, was := "this stack", "was"
	if len(hidden) > 1 {
		what, was = "these stacks", "were"
	}
	return hidden, "Values hidden in " + strings.Join(hidden, ", ") + ": the cloud assembly does not hold " + what + ", so NoEcho positions there are unknown — " +
		"pass the assembly " + what + " " + was + " synthesized from as app to see them. Their drifted values, in cdkd's state and in AWS, show as ***; the paths that drifted still show."
}

// maskValue is the mask for a present value; absence and null say nothing
// about a value and stay as they are.
func maskValue(v model.Value) model.Value {
	if !v.Present() || v.IsNull() {
		return v
	}
	return model.MaskedValue()
}
