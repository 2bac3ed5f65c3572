package redact

import (
	"bytes"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/par"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Diff redacts a diff in place, fail closed: it places every changed value
// (see Input.Placed), then hides in two passes that must both run:
// positions first (a NoEcho value may be short or common, so matching it
// by value would shred the report, and cdkd 0.284 prints it in plaintext),
// then every string by value (a secret can surface anywhere, e.g. in a
// name). It also records, per stack, the unchanged resources that read a
// NoEcho parameter. Run it before the digest is computed. It is
// idempotent.
//
// A value hidden by its position is first added to in.Set (see learnDiff),
// so the same value is hidden wherever else it shows. Report.Hidden holds
// every value it hid that has no hidden-value token yet, with the value as it was:
// the caller fingerprints them into their tokens before the digest is
// computed. A value that carries a token already (a shard's report,
// aggregated) is reported too, without Original, so the caller counts
// every hidden value.
func Diff(d *model.Diff, in Input) Report {
	var rep Report
	pos := in.Positions
	if in.Placed {
		pos = nil
	} else {
		rep.Unplaced = placeDiff(d.Stacks, "", pos, nil)
		rep.NamedAfter = diffNamedAfter(d.Stacks, "", pos)
	}
	n := learnDiff(d.Stacks, "", pos, in.Set, in.Leaves)
	// The second pass only reads the set the first one filled: each
	// top-level stack (its nested ones with it) is redacted on a core of
	// its own, and what each hid is kept in the stacks' order.
	parts := make([][]Hidden, len(d.Stacks))
	par.Each(len(d.Stacks), func(i int) {
		redactStacks(d.Stacks[i:i+1], "", "", pos, in.Set, in.Leaves, &parts[i])
	})
	// Sized for what positions and tokens hide (a diff without an assembly
	// hides every value): growing the list as it goes would allocate
	// several times its size.
	rep.Hidden = make([]Hidden, 0, n)
	for _, p := range parts {
		rep.Hidden = append(rep.Hidden, p...)
	}
	return rep
}

// learnDiff is Diff's first pass: it decides every change's secret kind as
// the second pass will, and learns the values at secret positions of the
// whole diff before any of it is redacted by value. It counts the values
// the second pass will report hidden by position or by their token (a
// value hidden by value alone is not known before).
func learnDiff(stacks []model.StackDiff, parent string, pos Positions, set *secrets.Set, leaves bool) int {
	n := 0
	count := func(v model.Value, tok model.HiddenToken, kind model.SecretKind) {
		if tok != "" || (kind != model.SecretNone && hideable(v)) {
			n++
		}
	}
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
				if learns(pc.Secret) {
					where := s.Stack + "/" + ch.LogicalID + "." + pc.Path
					for _, v := range []model.Value{pc.Old, pc.New} {
						if _, ls, ok := leafSplit(leaves && known, st, ch.LogicalID, pc.Path, v); ok {
							learnLeaves(set, ls, s.Stack+"/"+ch.LogicalID)
						} else {
							learn(set, v, pc.Secret, where)
						}
					}
				}
				count(pc.Old, pc.OldToken, pc.Secret)
				count(pc.New, pc.NewToken, pc.Secret)
			}
			for a := range ch.AttributeChanges {
				ac := &ch.AttributeChanges[a]
				count(ac.Old, ac.OldToken, model.SecretNone)
				count(ac.New, ac.NewToken, model.SecretNone)
			}
		}
		for o := range s.OutputChanges {
			oc := &s.OutputChanges[o]
			if known {
				oc.Secret = stronger(oc.Secret, st.SecretOutput(oc.Name))
			}
			if learns(oc.Secret) {
				where := s.Stack + " output " + oc.Name
				learn(set, oc.Old, oc.Secret, where)
				learn(set, oc.New, oc.Secret, where)
			}
			count(oc.Old, oc.OldToken, oc.Secret)
			count(oc.New, oc.NewToken, oc.Secret)
		}
		n += learnDiff(s.Children, nestedName(parent, s.Stack), pos, set, leaves)
	}
	return n
}

// hideValue reports that before became after ("***", or a redacted
// value), unless nothing was hidden; a token set already is reported as it
// is.
func hideValue(hidden *[]Hidden, tok *model.HiddenToken, before, after model.Value, secretPos bool, place Place) {
	switch {
	case *tok != "":
		*hidden = append(*hidden, Hidden{Place: place, Token: tok})
		return
	case !before.Present() || before.IsNull() || (!secretPos && bytes.Equal(before.Raw, after.Raw)):
		return
	}
	*hidden = append(*hidden, Hidden{Place: place, Original: before, Token: tok})
}

// hideChange redacts one change's old and new values where they stand:
// hidden first when their position is secret, then by value. What it hid
// is recorded at place with the token to fill (see hideValue).
//
// split, when set, hides a value at a secret position leaf by leaf (see
// splitLeaves); where it does not apply the value is hidden whole.
func hideChange(set *secrets.Set, hidden *[]Hidden, old, new *model.Value, oldToken, newToken *model.HiddenToken, secretPos bool, split func(model.Value) (model.Value, bool), place Place) {
	before, after := *old, *new
	if secretPos {
		*old, *new = hideAt(*old, split), hideAt(*new, split)
	}
	*old, *new = redactValue(*old, set), redactValue(*new, set)
	hideValue(hidden, oldToken, before, *old, secretPos, place)
	hideValue(hidden, newToken, after, *new, secretPos, place)
}

// redactStacks is Diff's second pass.
func redactStacks(stacks []model.StackDiff, parent, shownParent string, pos Positions, set *secrets.Set, leaves bool, hidden *[]Hidden) {
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
				var split func(model.Value) (model.Value, bool)
				if leaves && known {
					logicalID, path := ch.LogicalID, pc.Path
					split = func(v model.Value) (model.Value, bool) {
						shown, _, ok := splitLeaves(st, logicalID, path, v)
						pc.Leaves = pc.Leaves || ok
						return shown, ok
					}
				}
				pc.Path = set.Redact(pc.Path)
				place := Place{Stack: shown, Region: s.Region, Name: id, Path: pc.Path}
				hideChange(set, hidden, &pc.Old, &pc.New, &pc.OldToken, &pc.NewToken, pc.Secret != model.SecretNone, split, place)
			}
			for a := range ch.AttributeChanges {
				ac := &ch.AttributeChanges[a]
				place := Place{Stack: shown, Region: s.Region, Name: id, Path: "@" + ac.Attribute}
				hideChange(set, hidden, &ac.Old, &ac.New, &ac.OldToken, &ac.NewToken, false, nil, place)
			}
			ch.LogicalID = id
			ch.ResourceType = set.Redact(ch.ResourceType)
			for k := range ch.CCAPI {
				ch.CCAPI[k] = set.Redact(ch.CCAPI[k])
			}
		}
		for o := range s.OutputChanges {
			oc := &s.OutputChanges[o] // its Secret is learnDiff's
			oc.Name = set.Redact(oc.Name)
			place := Place{Stack: shown, Region: s.Region, Output: true, Name: oc.Name}
			hideChange(set, hidden, &oc.Old, &oc.New, &oc.OldToken, &oc.NewToken, oc.Secret != model.SecretNone, nil, place)
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
		// Set after the stage in a run (see app's secretValues), carried
		// by a shard's report: names and sources, never a value.
		for k := range s.SecretValues {
			v := &s.SecretValues[k]
			v.LogicalID, v.Output, v.Path = set.Redact(v.LogicalID), set.Redact(v.Output), set.Redact(v.Path)
			v.ResourceType, v.Source, v.Reason = set.Redact(v.ResourceType), set.Redact(v.Source), set.Redact(v.Reason)
		}
		name := s.Stack
		s.Stack = set.Redact(s.Stack)
		redactStacks(s.Children, nestedName(parent, name), shown, pos, set, leaves, hidden)
	}
}
