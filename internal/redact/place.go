package redact

import (
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// placeDrift decides, before the drift is redacted, the positions of d
// that the assembly cannot: fail closed, a drifted value whose
// secret-ness cannot be decided (no assembly, stack not in it, nested
// template not found, resource not in the template) is marked
// model.SecretUnknown, which redaction hides. The state record is a second
// source: a position where it stores cdkd's NoEcho "***" is NoEcho,
// template or not. It returns what it could not place, with each change's
// names unredacted; run it before anything renames them.
func placeDrift(d *model.Drift, pos Positions, state StateLookup) []Unplaced {
	var out []Unplaced
	for i := range d.Stacks {
		s := &d.Stacks[i]
		var rec *awsx.State
		if state != nil {
			rec = state(s.Stack, s.Region)
		}
		st, _ := lookup(pos, s.Stack, s.Region)
		p := placing{stack: s.Stack, why: stackUnplaced(pos, s.Stack, s.Region, ""), st: st, out: out}
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			why := p.resourceWhy(dr.LogicalID)
			some := false
			for c := range dr.Changes {
				ch := &dr.Changes[c]
				switch {
				case storedHidden(rec, dr.LogicalID, ch.Path):
					ch.Secret = model.SecretNoEcho
				case ch.State.IsHidden() || ch.AWS.IsHidden():
					ch.Secret = hiddenKind(ch.Secret, ch.State, ch.AWS)
				}
				some = hideUnplaced(&ch.Secret, why, ch.State, ch.AWS) || some
			}
			p.resource(dr.LogicalID, why, some)
		}
		out = p.done()
	}
	return out
}

// placeDiff is placeDrift for a diff: a changed property or output value
// whose position the assembly cannot give is marked model.SecretUnknown,
// which redaction hides. A resource the template does not hold is one
// being deleted; its old values come from state.
func placeDiff(stacks []model.StackDiff, parent string, pos Positions, out []Unplaced) []Unplaced {
	for i := range stacks {
		s := &stacks[i]
		st, _ := lookupNested(pos, s.Stack, s.Region, parent)
		p := placing{stack: s.Stack, why: stackUnplaced(pos, s.Stack, s.Region, parent), st: st, out: out}
		for c := range s.Changes {
			ch := &s.Changes[c]
			why := p.resourceWhy(ch.LogicalID)
			some := false
			for k := range ch.PropertyChanges {
				pc := &ch.PropertyChanges[k]
				some = hideUnplaced(&pc.Secret, why, pc.Old, pc.New) || some
			}
			p.resource(ch.LogicalID, why, some)
		}
		for o := range s.OutputChanges {
			oc := &s.OutputChanges[o]
			p.hidden = hideUnplaced(&oc.Secret, p.why, oc.Old, oc.New) || p.hidden
		}
		out = placeDiff(s.Children, nestedName(parent, s.Stack), pos, p.done())
	}
	return out
}

// placing is the fail-closed "unplaced" rule for one stack, written once
// for diffs and drifts: a value whose position cannot be decided is hidden
// (hideUnplaced), and what was hidden is reported once for the stack when
// the whole stack is unplaced, else once per resource the template lacks.
type placing struct {
	stack string
	why   string // why the stack's positions are unknown, "" when known
	st    assembly.Stack
	// hidden: a value was hidden because the whole stack is unplaced.
	hidden bool
	out    []Unplaced
}

// resourceWhy says why a resource's positions are unknown, "" when known.
func (p *placing) resourceWhy(logicalID string) string {
	if p.why == "" && !p.st.Placed(logicalID) {
		return WhyNotInTemplate
	}
	return p.why
}

// resource records a resource some of whose values were hidden for why.
func (p *placing) resource(logicalID, why string, some bool) {
	switch {
	case !some:
	case p.why != "":
		p.hidden = true
	default:
		p.out = append(p.out, Unplaced{Stack: p.stack, LogicalID: logicalID, Why: why})
	}
}

// done returns what is unplaced so far, the stack included.
func (p *placing) done() []Unplaced {
	if p.hidden {
		p.out = append(p.out, Unplaced{Stack: p.stack, Why: p.why})
	}
	return p.out
}

// hideUnplaced marks a value pair SecretUnknown when its position is
// unknown (why != ""), nothing else decided its kind, and either side holds
// something to hide; it reports whether it did.
func hideUnplaced(secret *model.SecretKind, why string, a, b model.Value) bool {
	if why == "" || *secret != model.SecretNone || !(hideable(a) || hideable(b)) {
		return false
	}
	*secret = model.SecretUnknown
	return true
}

// stackUnplaced says why a stack's positions are unknown, "" when the
// assembly gives them.
func stackUnplaced(pos Positions, name, region, parent string) string {
	if pos == nil {
		return WhyNoAssembly
	}
	st, ok := lookupNested(pos, name, region, parent)
	switch {
	case !ok:
		return WhyStackNotAssembly
	case st.Unknown != "":
		return st.Unknown
	}
	return ""
}

// storedHidden reports that the state record stores cdkd's NoEcho "***" at a
// resource's path or under it, or that a property holding the path is the
// "***" (a string containing a NoEcho value is stored as "***" whole,
// state schema 11): the position is NoEcho.
func storedHidden(rec *awsx.State, logicalID, path string) bool {
	if slices.Contains(rec.StringsAt(logicalID, path), model.Hidden) {
		return true
	}
	if rec == nil {
		return false
	}
	res := rec.Resources[logicalID]
	for p := path; ; {
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			return false
		}
		p = p[:i]
		for _, bag := range []map[string]any{res.Properties, res.ObservedProperties, res.Attributes} {
			if v, ok := awsx.ValueAt(bag, p); ok && v == model.Hidden {
				return true
			}
		}
	}
}
