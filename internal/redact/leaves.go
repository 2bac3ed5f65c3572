package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Per-leaf secrecy (issue 45). cdkd reports a property whole
// ("Environment") when one leaf of it changed, so a position that reads a
// NoEcho parameter deep inside it ("Environment.Variables.API_KEY") used
// to hide the whole value and learn every value in it as a secret: the
// public settings beside the secret ("prod", "us-east-1") were then masked
// in every later line of the job and redacted from every report. Instead,
// each leaf is decided from the template (assembly.Stack.LeafAt): a leaf
// the template writes in public is shown and never learned; a leaf at a
// secret position is hidden and learned; a leaf the template does not
// write (an old value's key since removed) is hidden, and learned only
// under secrets.Set.AddUndecided's rule.

// leafValue is one scalar leaf of a value, with its full path.
type leafValue struct {
	path string
	text string
	leaf assembly.Leaf
	kind model.SecretKind
	// written: the template writes this very text at this path (another
	// list index): hidden at a secret position, but public text, never
	// learned as a secret.
	written bool
}

// splitLeaves decides each scalar leaf of v, reported at path of resource
// id, and returns v with its non-public leaves replaced by "***". ok is
// false when per-leaf decisions do not apply and the position is hidden
// whole, as before: v is not a JSON object or array (a scalar is one
// leaf), the template does not hold the resource or writes nothing in
// public in it, or every leaf is secret.
func splitLeaves(st assembly.Stack, id, path string, v model.Value) (shown model.Value, leaves []leafValue, ok bool) {
	return splitLeavesBut(st, id, path, v, nil)
}

// splitLeavesBut is splitLeaves that also hides the leaves at the paths
// in stored, whatever the template says there (see storedHiddenLeaves).
func splitLeavesBut(st assembly.Stack, id, path string, v model.Value, stored map[string]bool) (shown model.Value, leaves []leafValue, ok bool) {
	if !hideable(v) || v.IsHidden() || !st.HasLiterals(id) {
		return v, nil, false
	}
	raw := bytes.TrimSpace(v.Raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return v, nil, false
	}
	tree, err := model.DecodeJSON(raw)
	if err != nil {
		return v, nil, false
	}
	public := false
	tree = walkLeaves(tree, path, func(p string, x any) any {
		text, scalar := scalarText(x)
		if !scalar {
			return x
		}
		leaf, kind := st.LeafAt(id, p, text)
		if leaf == assembly.LeafPublic && stored[p] {
			leaf, kind = assembly.LeafSecret, model.SecretNoEcho
		}
		written := leaf == assembly.LeafSecret && st.LiteralIs(id, p, text)
		leaves = append(leaves, leafValue{path: p, text: text, leaf: leaf, kind: kind, written: written})
		if leaf == assembly.LeafPublic {
			public = true
			return x
		}
		return model.Hidden
	})
	if !public {
		return v, nil, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(tree) != nil {
		return v, nil, false
	}
	return model.Value{Raw: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}, leaves, true
}

// walkLeaves calls f on every leaf of x (anything that is not an object or
// array), at its path below path, and puts what f returns in its place.
func walkLeaves(x any, path string, f func(path string, leaf any) any) any {
	switch n := x.(type) {
	case map[string]any:
		for k, v := range n {
			n[k] = walkLeaves(v, joinPath(path, k), f)
		}
		return n
	case []any:
		for i, v := range n {
			n[i] = walkLeaves(v, joinPath(path, strconv.Itoa(i)), f)
		}
		return n
	}
	return f(path, x)
}

func joinPath(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

// scalarText is a leaf's text as a secret would be registered; null is no
// value.
func scalarText(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// learnLeaves learns what splitLeaves hid: a leaf at a secret position as
// learn does, an undecided one under secrets.Set.AddUndecided's rule; a
// public leaf is never learned.
func learnLeaves(set *secrets.Set, leaves []leafValue, where string) {
	for _, l := range leaves {
		switch l.leaf {
		case assembly.LeafSecret:
			if !l.written {
				learn(set, model.StringValue(l.text), l.kind, where+" "+l.path)
			}
		case assembly.LeafUndecided:
			if l.text == model.Hidden || strings.Contains(l.text, "{{resolve:") || covered(set, l.text) {
				continue
			}
			set.AddUndecided(l.text, fmt.Sprintf("value at %s %s, a position the template does not write", where, l.path))
		}
	}
}

// leafSplit is splitLeaves when per-leaf decisions are on and the stack's
// positions are known.
func leafSplit(on bool, st assembly.Stack, id, path string, v model.Value) (model.Value, []leafValue, bool) {
	if !on {
		return v, nil, false
	}
	return splitLeaves(st, id, path, v)
}

// hideAt hides a value at a secret position: leaf by leaf when split
// applies, else whole (absence and null stay visible).
func hideAt(v model.Value, split func(model.Value) (model.Value, bool)) model.Value {
	if split != nil {
		if shown, ok := split(v); ok {
			return shown
		}
	}
	return hidePresent(v)
}

// storedHiddenLeaves are the paths of the leaves that hold cdkd's NoEcho
// "***" in any of values: in a drift, the stored side says so of a leaf
// that was NoEcho when it was deployed, and the live side's leaf there is
// the secret, whatever today's template writes.
func storedHiddenLeaves(path string, values ...model.Value) map[string]bool {
	out := map[string]bool{}
	for _, v := range values {
		raw := bytes.TrimSpace(v.Raw)
		if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
			continue
		}
		tree, err := model.DecodeJSON(raw)
		if err != nil {
			continue
		}
		walkLeaves(tree, path, func(p string, x any) any {
			if s, ok := x.(string); ok && s == model.Hidden {
				out[p] = true
			}
			return x
		})
	}
	return out
}

// splitDrift hides a drifted change's stored and live values leaf by leaf
// when both split (see splitLeaves), the leaves either side stores as
// "***" hidden in both; ok is false when the change is to be hidden whole.
func splitDrift(st assembly.Stack, id string, ch model.DriftChange) (state, aws model.Value, leaves []leafValue, ok bool) {
	if ch.Secret != model.SecretNoEcho && ch.Secret != model.SecretReference {
		return ch.State, ch.AWS, nil, false
	}
	stored := storedHiddenLeaves(ch.Path, ch.State, ch.AWS)
	state, aws = ch.State, ch.AWS
	for _, side := range []*model.Value{&state, &aws} {
		if !hideable(*side) {
			continue
		}
		shown, ls, split := splitLeavesBut(st, id, ch.Path, *side, stored)
		if !split {
			return ch.State, ch.AWS, nil, false
		}
		*side = shown
		leaves = append(leaves, ls...)
	}
	return state, aws, leaves, len(leaves) > 0
}

// leafDrift is splitDrift when per-leaf decisions are on and the stack's
// positions are known.
func leafDrift(on bool, st assembly.Stack, id string, ch model.DriftChange) (state, aws model.Value, leaves []leafValue, ok bool) {
	if !on {
		return ch.State, ch.AWS, nil, false
	}
	return splitDrift(st, id, ch)
}
