package redact

import (
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// placeDrift decides, before the drift is redacted, the positions of d
// that the assembly cannot: fail closed, a drifted value whose
// secret-ness cannot be decided (no assembly, stack not in it, nested
// template not found, resource not in the template) is marked
// model.SecretUnknown, which redaction hides. The state record is a second
// source: a position where it stores cdkd's NoEcho mask is NoEcho,
// template or not. It returns what it could not place, with each change's
// names unredacted; run it before anything renames them.
func placeDrift(d *model.Drift, pos Positions, state StateLookup) []Unplaced {
	var out []Unplaced
	for i := range d.Stacks {
		s := &d.Stacks[i]
		why := stackUnplaced(pos, s.Stack, s.Region, "")
		var rec *awsx.State
		if state != nil {
			rec = state(s.Stack, s.Region)
		}
		st, _ := lookup(pos, s.Stack, s.Region)
		stackHidden := false
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			resWhy := why
			if resWhy == "" && !st.Placed(dr.LogicalID) {
				resWhy = WhyNotInTemplate
			}
			some := false
			for c := range dr.Changes {
				ch := &dr.Changes[c]
				if storedMask(rec, dr.LogicalID, ch.Path) || isMask(ch.State) || isMask(ch.AWS) {
					ch.Secret = model.SecretNoEcho
				}
				if resWhy != "" && ch.Secret == model.SecretNone && (hideable(ch.State) || hideable(ch.AWS)) {
					ch.Secret = model.SecretUnknown
					some = true
				}
			}
			switch {
			case some && why != "":
				stackHidden = true
			case some:
				out = append(out, Unplaced{Stack: s.Stack, LogicalID: dr.LogicalID, Why: resWhy})
			}
		}
		if stackHidden {
			out = append(out, Unplaced{Stack: s.Stack, Why: why})
		}
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
		why := stackUnplaced(pos, s.Stack, s.Region, parent)
		st, _ := lookupNested(pos, s.Stack, s.Region, parent)
		stackHidden := false
		for c := range s.Changes {
			ch := &s.Changes[c]
			resWhy := why
			if resWhy == "" && !st.Placed(ch.LogicalID) {
				resWhy = WhyNotInTemplate
			}
			if resWhy == "" {
				continue
			}
			some := false
			for p := range ch.PropertyChanges {
				pc := &ch.PropertyChanges[p]
				if pc.Secret == model.SecretNone && (hideable(pc.Old) || hideable(pc.New)) {
					pc.Secret = model.SecretUnknown
					some = true
				}
			}
			switch {
			case some && why != "":
				stackHidden = true
			case some:
				out = append(out, Unplaced{Stack: s.Stack, LogicalID: ch.LogicalID, Why: resWhy})
			}
		}
		if why != "" {
			for o := range s.OutputChanges {
				oc := &s.OutputChanges[o]
				if oc.Secret == model.SecretNone && (hideable(oc.Old) || hideable(oc.New)) {
					oc.Secret = model.SecretUnknown
					stackHidden = true
				}
			}
		}
		if stackHidden {
			out = append(out, Unplaced{Stack: s.Stack, Why: why})
		}
		out = placeDiff(s.Children, nestedName(parent, s.Stack), pos, out)
	}
	return out
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

// storedMask reports that the state record stores cdkd's NoEcho mask at a
// resource's path or under it, or that a property holding the path is the
// mask (a string containing a NoEcho value is stored as the mask whole,
// state schema 11): the position is NoEcho.
func storedMask(rec *awsx.State, logicalID, path string) bool {
	if slices.Contains(rec.StringsAt(logicalID, path), model.Masked) {
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
			if v, ok := awsx.ValueAt(bag, p); ok && v == model.Masked {
				return true
			}
		}
	}
}
