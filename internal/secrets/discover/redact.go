package discover

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Positions answers "is this position secret?" for a stack. The assembly
// implements it; a nil Positions knows no positions (value redaction only).
type Positions interface {
	Stack(name string) (assembly.Stack, bool)
}

// regionalPositions is implemented by *assembly.Assembly: one stack name
// may be deployed to several regions from one assembly.
type regionalPositions interface {
	StackIn(name, region string) (assembly.Stack, bool)
}

// RedactDiff hides secrets in d in place, in two passes that must both run:
// positions first (a NoEcho value may be short or common, so matching it by
// value would shred the report, and cdkd 0.284 prints it in plaintext), then
// every string by value (a secret can surface anywhere, e.g. in a name).
// It also records, per stack, the unchanged resources that read a NoEcho
// parameter. Run it before the digest is computed. It is idempotent.
//
// A value hidden by its position is first added to set (see learnDiff), so
// the same value is hidden wherever else it shows.
func RedactDiff(d *model.Diff, pos Positions, set *secrets.Set) {
	RedactDiffHiding(d, pos, set, nil)
}

// RedactDiffHiding is RedactDiff, and calls hide with every value it hid
// that has no mask token yet, with the value as it was: the caller
// fingerprints them into their tokens (see model.MaskToken) before the
// digest is computed, and keeps the values in memory only. A value that
// carries a token already (a shard's report, aggregated) is reported too,
// without Original, so the caller counts every hidden value.
func RedactDiffHiding(d *model.Diff, pos Positions, set *secrets.Set, hide func(Hidden)) {
	learnDiff(d.Stacks, "", pos, set)
	redactStacks(d.Stacks, "", "", pos, set, hide)
}

// Hidden is one value redaction hid: where it was (names as redacted, so
// every run that redacts alike names it alike), what it was (absent when
// its token is set already), and the token to fill in.
type Hidden struct {
	Place    Place
	Original model.Value
	Token    *model.MaskToken
}

// Place is where a hidden value was: a property or policy attribute of a
// resource, or an output's value. Stack is the nested path ("Parent~Child").
type Place struct {
	Stack, Region string
	Output        bool
	// Name is the logical id, or the output's name.
	Name string
	// Path is the property path, "@" and the attribute for a policy
	// attribute, "" for an output.
	Path string
}

// hideValue reports that before became after (a mask, or a redacted
// value), unless nothing was hidden; a token set already is reported as it
// is.
func hideValue(hide func(Hidden), tok *model.MaskToken, before, after model.Value, masked bool, place Place) {
	switch {
	case hide == nil:
		return
	case *tok != "":
		hide(Hidden{Place: place, Token: tok})
		return
	case !before.Present() || before.IsNull() || (!masked && bytes.Equal(before.Raw, after.Raw)):
		return
	}
	hide(Hidden{Place: place, Original: before, Token: tok})
}

func redactStacks(stacks []model.StackDiff, parent, shownParent string, pos Positions, set *secrets.Set, hide func(Hidden)) {
	for i := range stacks {
		s := &stacks[i]
		st, known := lookupNested(pos, s.Stack, s.Region, parent)
		shown := nestedName(shownParent, set.Redact(s.Stack))
		changed := map[string]bool{}
		for c := range s.Changes {
			ch := &s.Changes[c]
			changed[ch.LogicalID] = true
			id := set.Redact(ch.LogicalID)
			for p := range ch.PropertyChanges {
				pc := &ch.PropertyChanges[p] // its Secret is learnDiff's
				old, new := pc.Old, pc.New
				masked := pc.Secret != model.SecretNone
				if masked {
					pc.Old, pc.New = maskPresent(pc.Old), maskPresent(pc.New)
				}
				pc.Path = set.Redact(pc.Path)
				pc.Old, pc.New = redactValue(pc.Old, set), redactValue(pc.New, set)
				place := Place{Stack: shown, Region: s.Region, Name: id, Path: pc.Path}
				hideValue(hide, &pc.OldMask, old, pc.Old, masked, place)
				hideValue(hide, &pc.NewMask, new, pc.New, masked, place)
			}
			for a := range ch.AttributeChanges {
				ac := &ch.AttributeChanges[a]
				old, new := ac.Old, ac.New
				ac.Old, ac.New = redactValue(ac.Old, set), redactValue(ac.New, set)
				place := Place{Stack: shown, Region: s.Region, Name: id, Path: "@" + ac.Attribute}
				hideValue(hide, &ac.OldMask, old, ac.Old, false, place)
				hideValue(hide, &ac.NewMask, new, ac.New, false, place)
			}
			ch.LogicalID = id
			ch.ResourceType = set.Redact(ch.ResourceType)
			for k := range ch.CCAPI {
				ch.CCAPI[k] = set.Redact(ch.CCAPI[k])
			}
		}
		for o := range s.OutputChanges {
			oc := &s.OutputChanges[o] // its Secret is learnDiff's
			old, new := oc.Old, oc.New
			masked := oc.Secret != model.SecretNone
			if masked {
				oc.Old, oc.New = maskPresent(oc.Old), maskPresent(oc.New)
			}
			oc.Name = set.Redact(oc.Name)
			oc.Old, oc.New = redactValue(oc.Old, set), redactValue(oc.New, set)
			place := Place{Stack: shown, Region: s.Region, Output: true, Name: oc.Name}
			hideValue(hide, &oc.OldMask, old, oc.Old, masked, place)
			hideValue(hide, &oc.NewMask, new, oc.New, masked, place)
		}
		// The note lists what cdkd reported (the seeds' cdkd does) and what
		// the assembly knows, less what changed: a changed resource is
		// reported as a change already.
		readers := slices.Clone(s.NoEchoReaders)
		if known {
			readers = append(readers, st.NoEchoReaders()...)
		}
		s.NoEchoReaders = nil
		for _, id := range readers {
			if !changed[id] {
				s.NoEchoReaders = append(s.NoEchoReaders, set.Redact(id))
			}
		}
		slices.Sort(s.NoEchoReaders)
		s.NoEchoReaders = slices.Compact(s.NoEchoReaders)
		if len(s.NoEchoReaders) == 0 {
			s.NoEchoReaders = nil
		}
		name := s.Stack
		s.Stack = set.Redact(s.Stack)
		redactStacks(s.Children, nestedName(parent, name), shown, pos, set, hide)
	}
}

// RedactDrift hides secrets in a drift report in place: the state and AWS
// values at secret positions (both: the live value is the secret as much
// as the stored one), and every string by value. A side that is the mask
// makes its position secret (NoEcho), assembly or not: cdkd stores a NoEcho
// value as the mask (state schema version 11), and a side redacted whole
// was a secret, so the other side is the live secret. The reporters hide
// such a change in Markdown; this hides it in the model, and so in the
// report JSON. It is idempotent. A value hidden by its position is first
// added to set (see learnDrift), so the same value is hidden wherever else
// it shows; values of model.SecretUnknown positions (PlaceDrift) are hidden
// but not learned: nothing says they are secret.
func RedactDrift(d *model.Drift, pos Positions, set *secrets.Set) {
	learnDrift(d, pos, set)
	for i := range d.Stacks {
		s := &d.Stacks[i]
		for r := range s.Drifted {
			dr := &s.Drifted[r]
			for c := range dr.Changes {
				ch := &dr.Changes[c] // its Secret is learnDrift's, refined below
				ch.Path = set.Redact(ch.Path)
				ch.State, ch.AWS = redactValue(ch.State, set), redactValue(ch.AWS, set)
				if ch.Secret == model.SecretNone && (isMask(ch.State) || isMask(ch.AWS)) {
					ch.Secret = model.SecretNoEcho
				}
				if ch.Secret != model.SecretNone {
					ch.State, ch.AWS = maskPresent(ch.State), maskPresent(ch.AWS)
				}
			}
			redactResource(&dr.Resource, set)
		}
		for _, group := range [][]model.Resource{s.Clean, s.NotSupported, s.Skipped} {
			for r := range group {
				redactResource(&group[r], set)
			}
		}
		for r := range s.NotCompared {
			redactResource(&s.NotCompared[r].Resource, set)
		}
		s.Stack = set.Redact(s.Stack)
	}
}

func redactResource(r *model.Resource, set *secrets.Set) {
	r.LogicalID = set.Redact(r.LogicalID)
	r.Type = set.Redact(r.Type)
}

// lookup finds a stack's positions by the name and region cdkd reports.
func lookup(pos Positions, name, region string) (assembly.Stack, bool) {
	if pos == nil {
		return assembly.Stack{}, false
	}
	if rp, ok := pos.(regionalPositions); ok && region != "" {
		return rp.StackIn(name, region)
	}
	return pos.Stack(name)
}

// lookupNested finds a nested stack of a --recursive diff, which cdkd may
// name by its state name ("Parent~Child") or by its logical id alone.
func lookupNested(pos Positions, name, region, parent string) (assembly.Stack, bool) {
	if st, ok := lookup(pos, name, region); ok || parent == "" {
		return st, ok
	}
	return lookup(pos, parent+"~"+name, region)
}

func nestedName(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "~" + name
}

// stronger keeps NoEcho over a reference and any kind over none, so a
// second pass (or a kind cdkd reported) never weakens a position.
func stronger(a, b model.SecretKind) model.SecretKind {
	switch {
	case a == model.SecretNoEcho || b == model.SecretNoEcho:
		return model.SecretNoEcho
	case a != model.SecretNone:
		return a
	}
	return b
}

// isMask reports a value that is cdkd's (or our) mask: the JSON string "***".
func isMask(v model.Value) bool {
	return v.Present() && !v.IsNull() && v.Text() == model.Masked
}

// maskPresent replaces a value with the mask but keeps absence and null
// visible: a reviewer still learns that a secret property was added or
// removed, and neither tells anything about the value.
func maskPresent(v model.Value) model.Value {
	if !v.Present() || v.IsNull() {
		return v
	}
	return model.MaskedValue()
}

// redactValue redacts a JSON value twice over. First every string and key
// is redacted decoded: a secret written in another encoding inside a JSON
// string (XML entities, say) has its backslashes and quotes escaped in the
// raw text, where no single encoding matches it. Then the raw text is
// redacted, for a secret that spans JSON syntax; if that broke the JSON, the
// whole value is masked: when in doubt, redact.
func redactValue(v model.Value, set *secrets.Set) model.Value {
	if !v.Present() {
		return v
	}
	raw := []byte(v.Raw)
	// Fast path: without a backslash every decoded string is a substring of
	// raw, so when raw holds no secret, no decoded string does either.
	if bytes.IndexByte(raw, '\\') < 0 && !set.Contains(string(raw)) {
		return v
	}
	if decoded, ok := redactDecoded(raw, set); ok {
		raw = decoded
	}
	out := set.RedactBytes(raw)
	if string(out) == string(v.Raw) {
		return v
	}
	if !json.Valid(out) {
		return model.MaskedValue()
	}
	return model.Value{Raw: out}
}

// redactDecoded redacts the decoded strings and keys of a JSON value and
// encodes it again; ok is false when nothing changed or raw is not JSON.
// Re-encoding sorts object keys, which only a changed value shows.
func redactDecoded(raw []byte, set *secrets.Set) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return nil, false
	}
	changed := false
	x = redactTree(x, set, &changed)
	if !changed {
		return nil, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(x) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

func redactTree(x any, set *secrets.Set, changed *bool) any {
	switch n := x.(type) {
	case string:
		r := set.Redact(n)
		*changed = *changed || r != n
		return r
	case []any:
		for i := range n {
			n[i] = redactTree(n[i], set, changed)
		}
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, v := range n {
			rk := set.Redact(k)
			*changed = *changed || rk != k
			if _, dup := out[rk]; dup {
				// Two keys redacted alike: keeping one would misreport.
				return model.Masked
			}
			out[rk] = redactTree(v, set, changed)
		}
		return out
	}
	return x
}
