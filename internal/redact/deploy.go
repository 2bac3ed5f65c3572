package redact

import (
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Deploy redacts a deploy's result in place, fail closed: a stack output
// the assembly marks secret (it reads a NoEcho or secret reference
// position) is marked Secret, its value learned (added to in.Set, so
// nothing printed later shows it) and hidden; then every string cdkd or
// the gate put in the result is redacted by value, and cdkd's stderr tail
// as lines (see Lines). The digest, commits and URLs are the action's own.
// It is idempotent.
func Deploy(d *model.DeployResult, in Input) Report {
	set := in.Set
	red := set.Redact
	// The message is cdkd's reason: its error output.
	d.Title, d.Message, d.ComparisonNote = red(d.Title), set.RedactLoose(d.Message), red(d.ComparisonNote)
	for i := range d.Warnings {
		d.Warnings[i] = red(d.Warnings[i])
	}
	if c := d.Comparison; c != nil {
		for i := range c.Items {
			it := &c.Items[i]
			it.Stack, it.Name, it.Type = red(it.Stack), red(it.Name), red(it.Type)
		}
	}
	for i := range d.Destructive {
		x := &d.Destructive[i]
		x.Stack, x.LogicalID, x.Type, x.AllowedBy = red(x.Stack), red(x.LogicalID), red(x.Type), red(x.AllowedBy)
		for k := range x.ForcedBy {
			x.ForcedBy[k] = red(x.ForcedBy[k])
		}
	}
	if l := d.Lock; l != nil {
		l.Stack, l.Region, l.Owner, l.Operation = red(l.Stack), red(l.Region), red(l.Owner), red(l.Operation)
		l.ExpiresIn, l.Unlock = red(l.ExpiresIn), red(l.Unlock)
	}
	pos := in.Positions
	if in.Placed {
		pos = nil
	}
	for i := range d.Stacks {
		deployedStack(&d.Stacks[i], pos, set)
	}
	if d.StackOutputs != nil {
		outputs := make(map[string]map[string]string, len(d.StackOutputs))
		for stack, outs := range d.StackOutputs {
			redacted := make(map[string]string, len(outs))
			for name, v := range outs {
				redacted[red(name)] = red(v)
			}
			outputs[red(stack)] = redacted
		}
		d.StackOutputs = outputs
	}
	d.StderrTail = Lines(set, d.StderrTail)
	if g := d.Group; g != nil {
		for i := range g.PullRequests {
			g.PullRequests[i].Problem = red(g.PullRequests[i].Problem)
		}
	}
	return Report{}
}

// deployedStack redacts what a deploy did to one stack.
func deployedStack(s *model.DeployedStack, pos Positions, set *secrets.Set) {
	red := set.Redact
	for k := range s.Outputs {
		o := &s.Outputs[k]
		if !o.Secret && SecretOutput(pos, s.Stack, s.Region, o.Name) {
			o.Secret = true
		}
		if o.Secret && o.Value != model.Hidden {
			set.Add(o.Value, "secret output "+s.Stack+"."+o.Name)
			o.Value = model.Hidden
		}
		o.Name, o.Value = red(o.Name), red(o.Value)
	}
	for k := range s.Resources {
		r := &s.Resources[k]
		r.LogicalID, r.Type, r.Error = red(r.LogicalID), red(r.Type), set.RedactLoose(r.Error)
	}
	s.Stack, s.Note = red(s.Stack), red(s.Note)
}

// SecretOutput asks the assembly whether a stack's output reads a secret
// position (NoEcho or a secret reference); false without an assembly or
// when it does not hold the stack.
func SecretOutput(pos Positions, stack, region, output string) bool {
	st, ok := lookup(pos, stack, region)
	return ok && st.SecretOutput(output) != model.SecretNone
}
