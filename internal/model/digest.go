package model

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
)

// DigestVersion names the canonical form below; it changes whenever that form
// does, so a deploy never compares digests computed two different ways.
const DigestVersion = "v3"

// Digest is the canonical fingerprint of the change set: what the deploy gate
// compares with the digest recorded in the reviewed PR comment. It covers every
// stack, change, property path and value (after redaction) in a stable
// order, and leaves out notes that are not changes. A hidden value is
// written as its hidden-value token (the salted Argon2id fingerprint of what
// the "***" hides, see HiddenToken) before the redacted text: two different
// secrets behind one "***" digest differently, and so do a hidden value and
// a literal "***" (v1 wrote the "***" alone; v2's tokens were Argon2id per value and
// position, v3's are fingerprint.SchemeShared). Guessing a secret from the
// public digest is impossible without the fingerprint key, and costs one
// Argon2id hash per guess with it.
//
// The canonical form is streamed into the hash (no copy of the whole is
// made): every string is length-prefixed, lists are visited in sorted order, and JSON
// values are re-encoded with sorted keys, so neither cdkd's ordering nor its
// JSON spelling changes the digest.
func (d Diff) Digest() string {
	h := sha256.New()
	w := &digestWriter{w: bufio.NewWriterSize(h, 64<<10)}
	w.str("cdkd-action diff " + DigestVersion)
	w.stacks(d.Stacks)
	_ = w.w.Flush()
	return DigestVersion + ":" + hex.EncodeToString(h.Sum(nil))
}

type digestWriter struct {
	w   *bufio.Writer
	num []byte
}

// str writes a length-prefixed string, so no two sequences of fields can
// produce the same bytes.
func (w *digestWriter) str(s string) {
	w.num = strconv.AppendInt(w.num[:0], int64(len(s)), 10)
	w.num = append(w.num, ':')
	w.w.Write(w.num)
	w.w.WriteString(s)
}

func (w *digestWriter) tag(t byte) { w.w.WriteByte(t) }

func (w *digestWriter) count(n int) {
	w.tag('#')
	w.str(strconv.Itoa(n))
}

func (w *digestWriter) bool(b bool) {
	if b {
		w.tag('T')
	} else {
		w.tag('F')
	}
}

func (w *digestWriter) stacks(stacks []StackDiff) {
	order := stackOrder(stacks)
	w.count(len(stacks))
	for _, i := range order {
		w.stack(&stacks[i])
	}
}

func stackOrder(stacks []StackDiff) []int {
	return sortedIndex(len(stacks), func(i, j int) bool {
		if stacks[i].Stack != stacks[j].Stack {
			return stacks[i].Stack < stacks[j].Stack
		}
		return stacks[i].Region < stacks[j].Region
	})
}

// stack writes one stack's form, its nested stacks' included.
func (w *digestWriter) stack(s *StackDiff) {
	w.tag('S')
	w.str(s.Stack)
	w.str(s.Region)
	changes := s.Changes
	w.count(len(changes))
	for _, c := range sortedIndex(len(changes), func(a, b int) bool { return changes[a].LogicalID < changes[b].LogicalID }) {
		w.change(&changes[c])
	}
	outs := s.OutputChanges
	w.count(len(outs))
	for _, o := range sortedIndex(len(outs), func(a, b int) bool { return outs[a].Name < outs[b].Name }) {
		oc := &outs[o]
		w.tag('O')
		w.str(oc.Name)
		w.str(string(oc.ChangeType))
		w.value(oc.Old, oc.OldToken)
		w.value(oc.New, oc.NewToken)
		w.bool(oc.OldValueRedacted)
		w.bool(oc.Export)
		w.str(string(oc.Secret))
	}
	if len(s.Security) > 0 {
		// Only when there are any: a change set without security
		// changes keeps the digest it always had.
		w.tag('X')
		w.count(len(s.Security))
		for _, k := range SecurityKeys(s.Security) {
			w.str(k)
		}
	}
	w.stacks(s.Children)
}

func (w *digestWriter) change(c *ResourceChange) {
	w.tag('R')
	w.str(c.LogicalID)
	w.str(string(c.ChangeType))
	w.str(c.ResourceType)
	if c.Unbound != "" {
		// Only when set, so the digests of change sets without an
		// unbound creation stay what they were.
		w.tag('U')
		w.str(c.Unbound)
	}
	props := c.PropertyChanges
	w.count(len(props))
	for _, i := range sortedIndex(len(props), func(a, b int) bool { return props[a].Path < props[b].Path }) {
		p := &props[i]
		w.tag('P')
		w.str(p.Path)
		w.value(p.Old, p.OldToken)
		w.value(p.New, p.NewToken)
		w.bool(p.RequiresReplacement)
		switch {
		case p.ReplacementPropagated == nil:
			w.tag('-')
		default:
			w.bool(*p.ReplacementPropagated)
		}
		w.str(string(p.Secret))
	}
	attrs := c.AttributeChanges
	w.count(len(attrs))
	for _, i := range sortedIndex(len(attrs), func(a, b int) bool { return attrs[a].Attribute < attrs[b].Attribute }) {
		w.tag('A')
		w.str(attrs[i].Attribute)
		w.value(attrs[i].Old, attrs[i].OldToken)
		w.value(attrs[i].New, attrs[i].NewToken)
	}
	cc := append([]string(nil), c.CCAPI...)
	sort.Strings(cc)
	w.count(len(cc))
	for _, p := range cc {
		w.str(p)
	}
}

// value writes a JSON value canonically: absent and null stay apart, and a
// hidden value is its hidden-value token, then what the report shows of it.
func (w *digestWriter) value(v Value, token HiddenToken) {
	if token != "" {
		w.tag('m')
		w.str(string(token))
	}
	if v.Raw == nil {
		w.tag('-')
		return
	}
	// A string without escapes is written as its bytes, as it always has
	// been (invalid UTF-8 included, which decoding would replace).
	if s, ok := plainString(v.Raw); ok {
		w.tag('s')
		w.str(string(s))
		return
	}
	x, err := DecodeJSON(v.Raw)
	if err != nil {
		w.tag('?')
		w.str(string(v.Raw))
		return
	}
	w.any(x)
}

// any writes a decoded JSON value: objects with their names sorted.
func (w *digestWriter) any(x any) {
	switch t := x.(type) {
	case nil:
		w.tag('n')
	case bool:
		w.bool(t)
	case json.Number:
		w.tag('d')
		w.str(t.String())
	case string:
		w.tag('s')
		w.str(t)
	case []any:
		w.tag('[')
		w.count(len(t))
		for _, e := range t {
			w.any(e)
		}
	case map[string]any:
		w.tag('{')
		w.count(len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			w.str(k)
			w.any(t[k])
		}
	}
}

// sortedIndex returns 0..n-1 ordered by less, leaving the data untouched.
// The result is only read: a short list already in order (cdkd's mostly
// are) gets a slice of identity, shared, and allocates nothing.
func sortedIndex(n int, less func(i, j int) bool) []int {
	inOrder := true
	for i := 1; i < n && inOrder; i++ {
		inOrder = !less(i, i-1)
	}
	if inOrder && n <= len(identity) {
		return identity[:n:n]
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if !inOrder {
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case less(a, b):
				return -1
			case less(b, a):
				return 1
			}
			return 0
		})
	}
	return idx
}

// identity is 0, 1, 2, ... for sortedIndex.
var identity = func() (out [64]int) {
	for i := range out {
		out[i] = i
	}
	return out
}()

// Canonical returns a deep copy without the parts that are not changes (NoEcho
// notes) and with every value in canonical JSON (sorted keys, compact).
func (d Diff) Canonical() Diff {
	return Diff{Stacks: canonicalStacks(d.Stacks)}
}

func canonicalStacks(in []StackDiff) []StackDiff {
	if len(in) == 0 {
		return nil
	}
	out := make([]StackDiff, len(in))
	for i, s := range in {
		cs := StackDiff{Stack: s.Stack, Region: s.Region, Children: canonicalStacks(s.Children)}
		for _, ch := range s.Changes {
			cc := ResourceChange{LogicalID: ch.LogicalID, ChangeType: ch.ChangeType, ResourceType: ch.ResourceType, Unbound: ch.Unbound,
				CCAPI: append([]string(nil), ch.CCAPI...)}
			for _, p := range ch.PropertyChanges {
				p.Old, p.New = canonicalValue(p.Old), canonicalValue(p.New)
				if p.ReplacementPropagated != nil {
					v := *p.ReplacementPropagated
					p.ReplacementPropagated = &v
				}
				cc.PropertyChanges = append(cc.PropertyChanges, p)
			}
			for _, a := range ch.AttributeChanges {
				a.Old, a.New = canonicalValue(a.Old), canonicalValue(a.New)
				cc.AttributeChanges = append(cc.AttributeChanges, a)
			}
			cs.Changes = append(cs.Changes, cc)
		}
		for _, o := range s.OutputChanges {
			o.Old, o.New = canonicalValue(o.Old), canonicalValue(o.New)
			cs.OutputChanges = append(cs.OutputChanges, o)
		}
		out[i] = cs
	}
	return out
}

// canonicalValue re-encodes JSON with sorted object keys and exact numbers.
func canonicalValue(v Value) Value {
	if v.Raw == nil {
		return v
	}
	x, err := DecodeJSON(v.Raw)
	if err != nil {
		return Value{Raw: append(json.RawMessage(nil), v.Raw...)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(x)
	return Value{Raw: bytes.TrimRight(buf.Bytes(), "\n")}
}
