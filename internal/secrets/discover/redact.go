package discover

import (
	"encoding/json"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Positions answers "is this position secret?" for a stack. The assembly
// implements it; a nil Positions knows no positions (value redaction only).
type Positions interface {
	Stack(name string) (assembly.Stack, bool)
}

// RedactDiff hides secrets in d in place, in two passes that must both run:
// positions first (a NoEcho value may be short or common, so matching it by
// value would shred the report, and cdkd 0.284 prints it in plaintext), then
// every string by value (a secret can surface anywhere, e.g. in a name).
// It also records, per stack, the unchanged resources that read a NoEcho
// parameter. Run it before the digest is computed.
func RedactDiff(d *model.Diff, pos Positions, set *secrets.Set) {
	redactStacks(d.Stacks, pos, set)
}

func redactStacks(stacks []model.StackDiff, pos Positions, set *secrets.Set) {
	for i := range stacks {
		s := &stacks[i]
		st, known := lookup(pos, s.Stack)
		changed := map[string]bool{}
		for c := range s.Changes {
			ch := &s.Changes[c]
			changed[ch.LogicalID] = true
			for p := range ch.PropertyChanges {
				pc := &ch.PropertyChanges[p]
				if known {
					if kind := st.SecretAt(ch.LogicalID, pc.Path); kind != model.SecretNone {
						pc.Secret = kind
					}
				}
				if pc.Secret != model.SecretNone {
					pc.Old, pc.New = maskPresent(pc.Old), maskPresent(pc.New)
				}
				pc.Path = set.Redact(pc.Path)
				pc.Old, pc.New = redactValue(pc.Old, set), redactValue(pc.New, set)
			}
			for a := range ch.AttributeChanges {
				ac := &ch.AttributeChanges[a]
				ac.Old, ac.New = redactValue(ac.Old, set), redactValue(ac.New, set)
			}
			ch.LogicalID = set.Redact(ch.LogicalID)
			for k := range ch.CCAPI {
				ch.CCAPI[k] = set.Redact(ch.CCAPI[k])
			}
		}
		for o := range s.OutputChanges {
			oc := &s.OutputChanges[o]
			if known {
				if kind := st.SecretOutput(oc.Name); kind != model.SecretNone {
					oc.Secret = kind
				}
			}
			if oc.Secret != model.SecretNone {
				oc.Old, oc.New = maskPresent(oc.Old), maskPresent(oc.New)
			}
			oc.Name = set.Redact(oc.Name)
			oc.Old, oc.New = redactValue(oc.Old, set), redactValue(oc.New, set)
		}
		if known {
			s.NoEchoReaders = nil
			for _, id := range st.NoEchoReaders() {
				if !changed[id] {
					s.NoEchoReaders = append(s.NoEchoReaders, id)
				}
			}
		}
		s.Stack = set.Redact(s.Stack)
		redactStacks(s.Children, pos, set)
	}
}

// RedactDrift hides secrets in a drift report in place: the state and AWS
// values at secret positions, then every string by value.
func RedactDrift(d *model.Drift, pos Positions, set *secrets.Set) {
	for i := range d.Stacks {
		s := &d.Stacks[i]
		st, known := lookup(pos, s.Stack)
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			for c := range dr.Changes {
				ch := &dr.Changes[c]
				if known {
					if kind := st.SecretAt(dr.LogicalID, ch.Path); kind != model.SecretNone {
						ch.Secret = kind
					}
				}
				if ch.Secret != model.SecretNone {
					ch.State, ch.AWS = maskPresent(ch.State), maskPresent(ch.AWS)
				}
				ch.Path = set.Redact(ch.Path)
				ch.State, ch.AWS = redactValue(ch.State, set), redactValue(ch.AWS, set)
			}
			dr.LogicalID = set.Redact(dr.LogicalID)
		}
		s.Stack = set.Redact(s.Stack)
	}
}

func lookup(pos Positions, name string) (assembly.Stack, bool) {
	if pos == nil {
		return assembly.Stack{}, false
	}
	return pos.Stack(name)
}

// maskPresent replaces a value with the mask but keeps absence visible: a
// reviewer still learns that a secret property was added or removed.
func maskPresent(v model.Value) model.Value {
	if !v.Present() || v.IsNull() {
		return v
	}
	return model.MaskedValue()
}

// redactValue redacts a JSON value's text. If redaction broke the JSON (a
// secret that spans JSON syntax), the whole value is masked: when in doubt,
// redact.
func redactValue(v model.Value, set *secrets.Set) model.Value {
	if !v.Present() {
		return v
	}
	out := set.RedactBytes(v.Raw)
	if string(out) == string(v.Raw) {
		return v
	}
	if !json.Valid(out) {
		return model.MaskedValue()
	}
	return model.Value{Raw: out}
}
