package discover

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Why a position cannot be placed; Unplaced.Why holds one of these or the
// assembly's own reason (assembly.Stack.Unknown).
const (
	WhyNoAssembly       = "no cloud assembly was given"
	WhyStackNotAssembly = "the cloud assembly does not hold this stack"
	WhyNotInTemplate    = "the resource is not in the cloud assembly's template (removed or renamed since it was deployed)"
)

// Unplaced is a stack, or one resource of it, of a report whose secret
// positions the assembly cannot give. Names are as the report gave them,
// before redaction.
type Unplaced struct {
	Stack string
	// LogicalID is "" when the whole stack is unplaced.
	LogicalID string
	Why       string
}

// StateLookup returns a stack's state record, nil when it has none or it
// cannot be read.
type StateLookup func(stack, region string) *awsx.State

// PlaceDrift decides, before RedactDrift, the positions of d that the
// assembly cannot: fail closed, a drifted value whose secret-ness cannot be
// decided (no assembly, stack not in it, nested template not found,
// resource not in the template) is marked model.SecretUnknown, which
// RedactDrift hides. The state record is a second source: a position where
// it stores cdkd's NoEcho mask is NoEcho, template or not. It returns what
// it could not place, with each change's names unredacted; run it before
// anything renames them.
func PlaceDrift(d *model.Drift, pos Positions, state StateLookup) []Unplaced {
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

// PlaceDiff is PlaceDrift for a diff: a changed property or output value
// whose position the assembly cannot give is marked model.SecretUnknown,
// which RedactDiff hides. A resource the template does not hold is one
// being deleted; its old values come from state.
func PlaceDiff(d *model.Diff, pos Positions) []Unplaced {
	return placeStacks(d.Stacks, "", pos, nil)
}

func placeStacks(stacks []model.StackDiff, parent string, pos Positions, out []Unplaced) []Unplaced {
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
		out = placeStacks(s.Children, nestedName(parent, s.Stack), pos, out)
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

// hideable is a value that says something: absence and null stay visible.
func hideable(v model.Value) bool { return v.Present() && !v.IsNull() }

// learn adds a value hidden because of where it sits to the redactor, so
// the same value elsewhere (a revert's failure line, cdkd's log, an event)
// is hidden too. A mask or an unresolved reference is not a value.
func learn(set *secrets.Set, v model.Value, kind model.SecretKind, where string) {
	if kind == model.SecretNone || kind == model.SecretUnknown || !hideable(v) {
		return
	}
	text := v.Text()
	if text == model.Masked || strings.Contains(text, "{{resolve:") || covered(set, text) {
		return
	}
	set.Add(text, fmt.Sprintf("value at the %s position %s", kind, where))
}

// covered reports a value that holds a secret the set knows already: that
// secret is what makes its position secret, and the rest of a longer value
// is the template's own text. A value that holds none may be the secret
// itself.
func covered(set *secrets.Set, text string) bool {
	return set.Redact(text) != text
}

// ShortWarnings are the warnings for the secrets in set that are not masked
// everywhere by value (too short, or no letter or digit), one sentence
// each, never holding a value: the same as Discover's.
func ShortWarnings(set *secrets.Set) []string {
	d := &discovery{set: set}
	d.warnShort()
	return d.warnings
}

// learnDrift is RedactDrift's first pass: it decides every change's secret
// kind as the second pass will, and learns the values at secret positions
// of the whole report before any of it is redacted by value.
func learnDrift(d *model.Drift, pos Positions, set *secrets.Set) {
	for i := range d.Stacks {
		s := &d.Stacks[i]
		st, known := lookup(pos, s.Stack, s.Region)
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			for c := range dr.Changes {
				ch := &dr.Changes[c]
				if known {
					ch.Secret = stronger(ch.Secret, st.SecretAt(dr.LogicalID, ch.Path))
				}
				if ch.Secret == model.SecretNone && (isMask(ch.State) || isMask(ch.AWS) ||
					redactedWhole(ch.State, set) || redactedWhole(ch.AWS, set)) {
					ch.Secret = model.SecretNoEcho
				}
				where := s.Stack + "/" + dr.LogicalID + "." + ch.Path
				learn(set, ch.State, ch.Secret, where)
				learn(set, ch.AWS, ch.Secret, where)
			}
		}
	}
}

// learnDiff is RedactDiff's first pass, as learnDrift is RedactDrift's.
func learnDiff(stacks []model.StackDiff, parent string, pos Positions, set *secrets.Set) {
	for i := range stacks {
		s := &stacks[i]
		st, known := lookupNested(pos, s.Stack, s.Region, parent)
		for c := range s.Changes {
			ch := &s.Changes[c]
			for p := range ch.PropertyChanges {
				pc := &ch.PropertyChanges[p]
				if known {
					pc.Secret = stronger(pc.Secret, st.SecretAt(ch.LogicalID, pc.Path))
				}
				where := s.Stack + "/" + ch.LogicalID + "." + pc.Path
				learn(set, pc.Old, pc.Secret, where)
				learn(set, pc.New, pc.Secret, where)
			}
		}
		for o := range s.OutputChanges {
			oc := &s.OutputChanges[o]
			if known {
				oc.Secret = stronger(oc.Secret, st.SecretOutput(oc.Name))
			}
			where := s.Stack + " output " + oc.Name
			learn(set, oc.Old, oc.Secret, where)
			learn(set, oc.New, oc.Secret, where)
		}
		learnDiff(s.Children, nestedName(parent, s.Stack), pos, set)
	}
}

// redactedWhole reports a value that is one secret and nothing else: the
// other side of its change is the live secret.
func redactedWhole(v model.Value, set *secrets.Set) bool {
	if !hideable(v) || isMask(v) {
		return false
	}
	return set.Redact(v.Text()) == model.Masked
}
