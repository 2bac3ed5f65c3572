package model

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// DeltaKind says how one item of the change set about to be deployed differs
// from the reviewed change set.
type DeltaKind string

const (
	// DeltaAdded is in the current change set only.
	DeltaAdded DeltaKind = "added"
	// DeltaRemoved was reviewed and is no longer in the change set.
	DeltaRemoved DeltaKind = "removed"
	// DeltaChanged is in both, differently.
	DeltaChanged DeltaKind = "changed"
)

// Comparison is what changed between the reviewed change set and the one a
// deploy is about to apply: the explanation of a "diff changed since
// review" refusal. The decision itself is the digests' (Diff.Digest); this
// only says where they part.
type Comparison struct {
	Items []ItemDelta `json:"items"`
	// Detailed is true when the reviewed side was a whole change set, so
	// property-level differences are listed; false when it was known only
	// by fingerprints (which items differ, not how).
	Detailed bool `json:"detailed"`
}

// Empty reports that no item differs.
func (c Comparison) Empty() bool { return len(c.Items) == 0 }

// ItemDelta is one resource or output that differs.
type ItemDelta struct {
	Delta  DeltaKind `json:"delta"`
	Stack  string    `json:"stack"` // display path, "Parent/Child" for a nested stack
	Region string    `json:"region,omitempty"`
	Output bool      `json:"output,omitempty"`
	// Name is the logical id, or the output's name.
	Name string `json:"name"`
	// Type is the resource type (the current one when both sides have one).
	Type string `json:"type,omitempty"`
	// Reviewed and Current are the item's action on each side: create,
	// update, replace, delete (resources) or add, modify, remove (outputs);
	// "" on the side the item is absent from.
	Reviewed string `json:"reviewed,omitempty"`
	Current  string `json:"current,omitempty"`
	// Paths are the parts that differ, for a changed item in a detailed
	// comparison.
	Paths []PathDelta `json:"paths,omitempty"`
}

// Path kinds of a PathDelta.
const (
	PathProperty     = "property"
	PathAttribute    = "attribute"
	PathType         = "resourceType"
	PathCloudControl = "ccApi"
	PathOutput       = "value"
)

// PathDelta is one part of an item that differs: a property path, a policy
// attribute, the resource type, the Cloud Control routing or an output's
// value.
type PathDelta struct {
	Delta DeltaKind `json:"delta"`
	Kind  string    `json:"kind"`
	Path  string    `json:"path,omitempty"`
	// Reviewed and Current are that part on each side, nil where absent.
	Reviewed *SideValue `json:"reviewed,omitempty"`
	Current  *SideValue `json:"current,omitempty"`
}

// SideValue is one side's old and new value of a part. Values come from
// redacted change sets: a secret position already reads "***".
type SideValue struct {
	Old                 Value      `json:"oldValue,omitzero"`
	New                 Value      `json:"newValue,omitzero"`
	RequiresReplacement bool       `json:"requiresReplacement,omitempty"`
	Secret              SecretKind `json:"secret,omitempty"`
	// OldToken and NewToken tell apart two values hidden behind one "***".
	OldToken HiddenToken `json:"oldMask,omitempty"`
	NewToken HiddenToken `json:"newMask,omitempty"`
}

// Fingerprint identifies one changed item of a change set by a short hash of
// its canonical form: the compact record of a reviewed change set too large
// to keep whole. Two equal items have equal fingerprints; the hash is not a
// security boundary (the full digest is), only a way to say which items
// differ.
type Fingerprint struct {
	Stack  string `json:"s"`
	Region string `json:"r,omitempty"`
	Output bool   `json:"o,omitempty"`
	Name   string `json:"n"`
	Type   string `json:"t,omitempty"`
	Action string `json:"a"`
	Hash   string `json:"h"`
}

// fingerprintHexLen is 64 bits of SHA-256: plenty to tell items apart in a
// listing.
const fingerprintHexLen = 16

// item is one changed resource or output, flattened out of a canonical diff.
type item struct {
	key      string
	stack    string
	region   string
	output   bool
	name     string
	typ      string
	action   string
	hash     string
	resource *ResourceChange
	out      *OutputChange
}

// Fingerprints lists every changed item of d with its hash, in a stable
// order.
func (d Diff) Fingerprints() []Fingerprint {
	items := flatten(d)
	out := make([]Fingerprint, len(items))
	for i, it := range items {
		out[i] = Fingerprint{Stack: it.stack, Region: it.region, Output: it.output, Name: it.name, Type: it.typ, Action: it.action, Hash: it.hash}
	}
	return out
}

// Compare lists how current differs from reviewed, down to property paths.
func Compare(reviewed, current Diff) Comparison {
	before := flatten(reviewed)
	after := flatten(current)
	byKey := make(map[string]*item, len(before))
	for i := range before {
		byKey[before[i].key] = &before[i]
	}
	c := Comparison{Detailed: true}
	seen := make(map[string]bool, len(after))
	for i := range after {
		a := &after[i]
		seen[a.key] = true
		b, ok := byKey[a.key]
		switch {
		case !ok:
			c.Items = append(c.Items, a.delta(DeltaAdded, "", a.action))
		case b.hash != a.hash:
			d := a.delta(DeltaChanged, b.action, a.action)
			d.Paths = paths(b, a)
			c.Items = append(c.Items, d)
		}
	}
	for i := range before {
		if b := &before[i]; !seen[b.key] {
			c.Items = append(c.Items, b.delta(DeltaRemoved, b.action, ""))
		}
	}
	sortDeltas(c.Items)
	return c
}

// CompareFingerprints lists which items of current differ from a reviewed
// change set known only by its fingerprints.
func CompareFingerprints(reviewed []Fingerprint, current Diff) Comparison {
	byKey := make(map[string]Fingerprint, len(reviewed))
	keys := newKeyer()
	for _, f := range reviewed {
		byKey[keys.key(f.Stack, f.Region, f.Output, f.Name)] = f
	}
	c := Comparison{}
	seen := map[string]bool{}
	for _, a := range flatten(current) {
		seen[a.key] = true
		b, ok := byKey[a.key]
		switch {
		case !ok:
			c.Items = append(c.Items, a.delta(DeltaAdded, "", a.action))
		case b.Hash != a.hash:
			c.Items = append(c.Items, a.delta(DeltaChanged, b.Action, a.action))
		}
	}
	keys = newKeyer()
	for _, f := range reviewed {
		if k := keys.key(f.Stack, f.Region, f.Output, f.Name); !seen[k] {
			c.Items = append(c.Items, ItemDelta{Delta: DeltaRemoved, Stack: f.Stack, Region: f.Region, Output: f.Output, Name: f.Name, Type: f.Type, Reviewed: f.Action})
		}
	}
	sortDeltas(c.Items)
	return c
}

func (it *item) delta(kind DeltaKind, reviewed, current string) ItemDelta {
	return ItemDelta{Delta: kind, Stack: it.stack, Region: it.region, Output: it.output, Name: it.name, Type: it.typ, Reviewed: reviewed, Current: current}
}

// flatten walks the canonical form of d: every changed resource and output
// with a key (stack path, region, kind, name) and a hash of its content.
func flatten(d Diff) []item {
	c := d.Canonical()
	c.Sort()
	var out []item
	keys := newKeyer()
	c.Walk(func(path string, s StackDiff) {
		for i := range s.Changes {
			ch := &s.Changes[i]
			out = append(out, item{
				key: keys.key(path, s.Region, false, ch.LogicalID), stack: path, region: s.Region,
				name: ch.LogicalID, typ: ch.ResourceType, action: string(ch.Action()),
				hash: hashJSON(ch), resource: ch,
			})
		}
		for i := range s.OutputChanges {
			o := &s.OutputChanges[i]
			out = append(out, item{
				key: keys.key(path, s.Region, true, o.Name), stack: path, region: s.Region, output: true,
				name: o.Name, action: strings.ToLower(string(o.ChangeType)), hash: hashJSON(o), out: o,
			})
		}
	})
	return out
}

// keyer builds item keys, numbering duplicates (two names that both
// redacted to "***") so neither hides the other.
type keyer map[string]int

func newKeyer() keyer { return keyer{} }

func (k keyer) key(stack, region string, output bool, name string) string {
	kind := "r"
	if output {
		kind = "o"
	}
	base := strings.Join([]string{stack, region, kind, name}, "\x00")
	k[base]++
	if n := k[base]; n > 1 {
		return base + "\x00#" + strconv.Itoa(n)
	}
	return base
}

func hashJSON(v any) string {
	b, _ := json.Marshal(v) // model types always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:fingerprintHexLen]
}

// paths lists the parts of a changed item that differ.
func paths(b, a *item) []PathDelta {
	if a.output {
		return outputPaths(b.out, a.out)
	}
	return resourcePaths(b.resource, a.resource)
}

func outputPaths(b, a *OutputChange) []PathDelta {
	if b == nil || a == nil {
		return nil
	}
	bs := &SideValue{Old: b.Old, New: b.New, Secret: b.Secret, OldToken: b.OldToken, NewToken: b.NewToken}
	as := &SideValue{Old: a.Old, New: a.New, Secret: a.Secret, OldToken: a.OldToken, NewToken: a.NewToken}
	if hashJSON(bs) == hashJSON(as) && b.Export == a.Export && b.OldValueRedacted == a.OldValueRedacted {
		return nil
	}
	return []PathDelta{{Delta: DeltaChanged, Kind: PathOutput, Reviewed: bs, Current: as}}
}

func resourcePaths(b, a *ResourceChange) []PathDelta {
	if b == nil || a == nil {
		return nil
	}
	var out []PathDelta
	if b.ResourceType != a.ResourceType {
		out = append(out, PathDelta{Delta: DeltaChanged, Kind: PathType,
			Reviewed: &SideValue{New: StringValue(b.ResourceType)}, Current: &SideValue{New: StringValue(a.ResourceType)}})
	}
	out = append(out, sideDeltas(PathProperty, propertySides(b.PropertyChanges), propertySides(a.PropertyChanges))...)
	out = append(out, sideDeltas(PathAttribute, attributeSides(b.AttributeChanges), attributeSides(a.AttributeChanges))...)
	if !slices.Equal(b.CCAPI, a.CCAPI) {
		out = append(out, PathDelta{Delta: DeltaChanged, Kind: PathCloudControl,
			Reviewed: &SideValue{New: jsonList(b.CCAPI)}, Current: &SideValue{New: jsonList(a.CCAPI)}})
	}
	return out
}

type namedSide struct {
	name string
	side SideValue
}

func propertySides(ps []PropertyChange) []namedSide {
	out := make([]namedSide, len(ps))
	for i, p := range ps {
		out[i] = namedSide{p.Path, SideValue{Old: p.Old, New: p.New, RequiresReplacement: p.RequiresReplacement, Secret: p.Secret,
			OldToken: p.OldToken, NewToken: p.NewToken}}
	}
	return out
}

func attributeSides(as []AttributeChange) []namedSide {
	out := make([]namedSide, len(as))
	for i, a := range as {
		out[i] = namedSide{a.Attribute, SideValue{Old: a.Old, New: a.New, OldToken: a.OldToken, NewToken: a.NewToken}}
	}
	return out
}

// sideDeltas pairs the parts of two sides by name (duplicates by order).
func sideDeltas(kind string, before, after []namedSide) []PathDelta {
	type slot struct {
		side *SideValue
		used bool
	}
	byName := map[string][]*slot{}
	for i := range before {
		byName[before[i].name] = append(byName[before[i].name], &slot{side: &before[i].side})
	}
	var out []PathDelta
	for i := range after {
		a := &after[i]
		var b *slot
		for _, s := range byName[a.name] {
			if !s.used {
				b = s
				break
			}
		}
		if b == nil {
			out = append(out, PathDelta{Delta: DeltaAdded, Kind: kind, Path: a.name, Current: &a.side})
			continue
		}
		b.used = true
		if hashJSON(b.side) != hashJSON(a.side) {
			out = append(out, PathDelta{Delta: DeltaChanged, Kind: kind, Path: a.name, Reviewed: b.side, Current: &a.side})
		}
	}
	for i := range before {
		for _, s := range byName[before[i].name] {
			if s.side == &before[i].side && !s.used {
				out = append(out, PathDelta{Delta: DeltaRemoved, Kind: kind, Path: before[i].name, Reviewed: s.side})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y PathDelta) int { return cmp.Compare(x.Path, y.Path) })
	return out
}

func jsonList(s []string) Value {
	if s == nil {
		s = []string{}
	}
	b, _ := json.Marshal(s)
	return Value{Raw: b}
}

func sortDeltas(items []ItemDelta) {
	slices.SortStableFunc(items, func(a, b ItemDelta) int {
		return cmp.Or(
			cmp.Compare(a.Stack, b.Stack),
			cmp.Compare(a.Region, b.Region),
			compareBool(a.Output, b.Output),
			cmp.Compare(a.Name, b.Name),
		)
	})
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
