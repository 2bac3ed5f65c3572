package model

import (
	"cmp"
	"slices"
)

// ChangeType is cdkd diff's resource change type. There is no REPLACE: a
// replacement is an UPDATE with a property that requires replacement.
type ChangeType string

const (
	ChangeCreate ChangeType = "CREATE"
	ChangeUpdate ChangeType = "UPDATE"
	ChangeDelete ChangeType = "DELETE"
)

// Known reports a change type this version understands. A later cdkd may
// add others (IMPORT, MOVE): they are shown as they are, counted as
// changes, and treated as destructive, since what they do is not known.
func (t ChangeType) Known() bool {
	return t == ChangeCreate || t == ChangeUpdate || t == ChangeDelete
}

// OutputChangeType is cdkd diff's output change type.
type OutputChangeType string

const (
	OutputAdd    OutputChangeType = "ADD"
	OutputModify OutputChangeType = "MODIFY"
	OutputRemove OutputChangeType = "REMOVE"
)

// Known reports an output change type this version understands.
func (t OutputChangeType) Known() bool {
	return t == OutputAdd || t == OutputModify || t == OutputRemove
}

// Action is what a reviewer cares about: replace is split out of update
// because it destroys the resource.
type Action string

const (
	ActionCreate  Action = "create"
	ActionUpdate  Action = "update"
	ActionReplace Action = "replace"
	ActionDelete  Action = "delete"
)

// SecretKind says why a position is hidden. Empty means not secret.
type SecretKind string

const (
	SecretNone SecretKind = ""
	// SecretNoEcho marks a position that reads a NoEcho parameter.
	SecretNoEcho SecretKind = "NoEcho"
	// SecretReference marks a position filled by a {{resolve:...}} secret reference.
	SecretReference SecretKind = "secret"
	// SecretUnknown marks a value hidden because no assembly says whether
	// its position is secret (fail closed): the resource is not in the
	// template, the stack not in the assembly, or there is no assembly.
	SecretUnknown SecretKind = "unknown position"
)

// Diff is one `cdkd diff --json` run: one node per target stack.
type Diff struct {
	Stacks []StackDiff `json:"stacks"`
}

// StackDiff is one stack's changes. Children are nested stacks (--recursive).
type StackDiff struct {
	Stack         string           `json:"stack"`
	Region        string           `json:"region"`
	Changes       []ResourceChange `json:"changes"`
	OutputChanges []OutputChange   `json:"outputChanges"`
	Children      []StackDiff      `json:"children,omitempty"`
	// NoEchoReaders are the logical ids of UNCHANGED resources that read a
	// NoEcho parameter: cdkd cannot tell whether that value changed. This is a
	// note for reviewers, never a change.
	NoEchoReaders []string `json:"noEchoReaders,omitempty"`
	// SecretValues are the positions a NoEcho value or a secret reference
	// fills, with what their fingerprints say (see secret_values.go).
	SecretValues []SecretValue `json:"secretValues,omitempty"`
	// Security are this stack's security changes (package security):
	// derived from the changes, the created resources' template and the
	// deleted ones' state, redacted, and part of the digest.
	Security []SecurityChange `json:"security,omitempty"`
}

// ResourceChange is one changed resource.
type ResourceChange struct {
	LogicalID        string            `json:"logicalId"`
	ChangeType       ChangeType        `json:"changeType"`
	ResourceType     string            `json:"resourceType"`
	PropertyChanges  []PropertyChange  `json:"propertyChanges,omitempty"`
	AttributeChanges []AttributeChange `json:"attributeChanges,omitempty"`
	CCAPI            []string          `json:"ccApi,omitempty"`
	// Unbound says why a CREATE's properties are not in the change set
	// ("" when they are): cdkd's diff names a created resource and its
	// type only, and its properties are read from the cloud assembly
	// (assembly.BindCreates). A creation the review could not bind is
	// refused at deploy (diff-unverifiable).
	Unbound string `json:"unbound,omitempty"`
}

// PropertyChange is one changed property path. Old or New is absent (not null)
// when the property did not exist on that side.
type PropertyChange struct {
	Path                  string     `json:"path"`
	Old                   Value      `json:"oldValue,omitzero"`
	New                   Value      `json:"newValue,omitzero"`
	RequiresReplacement   bool       `json:"requiresReplacement"`
	ReplacementPropagated *bool      `json:"replacementPropagated,omitempty"`
	Secret                SecretKind `json:"secret,omitempty"`
	// Leaves says the value at this secret position was hidden leaf by
	// leaf: the leaves the template writes in public are shown, the others
	// are "***" (review layout 4 on; see the redact stage's splitLeaves).
	// Unset, a value at a secret position is hidden whole.
	Leaves bool `json:"secretLeaves,omitempty"`
	// OldToken and NewToken stand for what redaction hid in Old and New
	// (see HiddenToken); "" where it hid nothing.
	OldToken HiddenToken `json:"oldMask,omitempty"`
	NewToken HiddenToken `json:"newMask,omitempty"`
}

// AttributeChange is a DeletionPolicy or UpdateReplacePolicy change.
type AttributeChange struct {
	Attribute string      `json:"attribute"`
	Old       Value       `json:"oldValue,omitzero"`
	New       Value       `json:"newValue,omitzero"`
	OldToken  HiddenToken `json:"oldMask,omitempty"`
	NewToken  HiddenToken `json:"newMask,omitempty"`
}

// OutputChange is one changed stack output (an exported output gives two rows).
type OutputChange struct {
	Name             string           `json:"name"`
	ChangeType       OutputChangeType `json:"changeType"`
	Old              Value            `json:"oldValue,omitzero"`
	New              Value            `json:"newValue,omitzero"`
	OldValueRedacted bool             `json:"oldValueRedacted,omitempty"`
	Export           bool             `json:"export"`
	Secret           SecretKind       `json:"secret,omitempty"`
	OldToken         HiddenToken      `json:"oldMask,omitempty"`
	NewToken         HiddenToken      `json:"newMask,omitempty"`
}

// Action classifies the change for reviewers. An unknown change type is its
// own action, named as cdkd named it ("IMPORT").
func (c ResourceChange) Action() Action {
	switch c.ChangeType {
	case ChangeCreate:
		return ActionCreate
	case ChangeDelete:
		return ActionDelete
	}
	if !c.ChangeType.Known() {
		return Action(c.ChangeType)
	}
	if c.Replaces() {
		return ActionReplace
	}
	return ActionUpdate
}

// Replaces reports an UPDATE that destroys and recreates the resource.
func (c ResourceChange) Replaces() bool {
	if c.ChangeType != ChangeUpdate {
		return false
	}
	for _, p := range c.PropertyChanges {
		if p.RequiresReplacement {
			return true
		}
	}
	return false
}

// ReplacingPaths lists the property paths that force a replacement.
func (c ResourceChange) ReplacingPaths() []string {
	var out []string
	for _, p := range c.PropertyChanges {
		if p.RequiresReplacement {
			out = append(out, p.Path)
		}
	}
	return out
}

// SecurityChanges is every security change of the run, nested stacks
// included.
func (d Diff) SecurityChanges() []SecurityChange {
	n := 0
	d.Walk(func(_ string, s StackDiff) { n += len(s.Security) })
	if n == 0 {
		return nil
	}
	out := make([]SecurityChange, 0, n) // a row is large: growing the list copied each several times
	d.Walk(func(_ string, s StackDiff) { out = append(out, s.Security...) })
	return out
}

// SecurityTally counts a diff's security rows, and those that count as
// broadening, where they are: a list of every row (SecurityChanges)
// copies a megabyte on a large diff.
type SecurityTally struct{ Rows, Broadening int }

// TallySecurity counts rows.
func TallySecurity(rows []SecurityChange) SecurityTally {
	t := SecurityTally{Rows: len(rows)}
	for i := range rows {
		if rows[i].Status.CountsAsBroadening() {
			t.Broadening++
		}
	}
	return t
}

// SecurityTally counts every stack's security rows.
func (d Diff) SecurityTally() SecurityTally {
	var t SecurityTally
	d.Walk(func(_ string, s StackDiff) {
		st := TallySecurity(s.Security)
		t.Rows, t.Broadening = t.Rows+st.Rows, t.Broadening+st.Broadening
	})
	return t
}

// UnboundCreates lists the creations whose properties are not bound
// ("Stack/LogicalID"), each with why.
func (d Diff) UnboundCreates() (ids []string, why string) {
	d.Walk(func(path string, s StackDiff) {
		for _, ch := range s.Changes {
			if ch.Unbound != "" {
				ids = append(ids, path+"/"+ch.LogicalID)
				if why == "" {
					why = ch.Unbound
				}
			}
		}
	})
	return ids, why
}

// Destructive reports a change that loses the existing resource, or may:
// a change type this version does not know could do anything.
func (c ResourceChange) Destructive() bool {
	a := c.Action()
	return a == ActionDelete || a == ActionReplace || !c.ChangeType.Known()
}

// Counts are the totals a headline and the action's outputs show.
// Update counts in-place updates only; replacements are counted apart.
type Counts struct {
	Create        int `json:"create"`
	Update        int `json:"update"`
	Replace       int `json:"replace"`
	Delete        int `json:"delete"`
	OutputsAdd    int `json:"outputsAdd"`
	OutputsModify int `json:"outputsModify"`
	OutputsRemove int `json:"outputsRemove"`
	// Other and OutputsOther count changes of a type this version does not
	// know (a later cdkd's IMPORT or MOVE): changes all the same.
	Other        int `json:"other,omitempty"`
	OutputsOther int `json:"outputsOther,omitempty"`
}

// Resources is the number of changed resources.
func (c Counts) Resources() int { return c.Create + c.Update + c.Replace + c.Delete + c.Other }

// Outputs is the number of changed outputs.
func (c Counts) Outputs() int {
	return c.OutputsAdd + c.OutputsModify + c.OutputsRemove + c.OutputsOther
}

// Any reports whether anything changes.
func (c Counts) Any() bool { return c.Resources()+c.Outputs() > 0 }

func (c *Counts) add(o Counts) {
	c.Create += o.Create
	c.Update += o.Update
	c.Replace += o.Replace
	c.Delete += o.Delete
	c.OutputsAdd += o.OutputsAdd
	c.OutputsModify += o.OutputsModify
	c.OutputsRemove += o.OutputsRemove
	c.Other += o.Other
	c.OutputsOther += o.OutputsOther
}

// OwnCounts counts this stack alone, without nested stacks.
func (s StackDiff) OwnCounts() Counts {
	var c Counts
	for _, ch := range s.Changes {
		switch ch.Action() {
		case ActionCreate:
			c.Create++
		case ActionUpdate:
			c.Update++
		case ActionReplace:
			c.Replace++
		case ActionDelete:
			c.Delete++
		default:
			c.Other++
		}
	}
	for _, o := range s.OutputChanges {
		switch o.ChangeType {
		case OutputAdd:
			c.OutputsAdd++
		case OutputModify:
			c.OutputsModify++
		case OutputRemove:
			c.OutputsRemove++
		default:
			c.OutputsOther++
		}
	}
	return c
}

// Counts counts this stack and its nested stacks.
func (s StackDiff) Counts() Counts {
	c := s.OwnCounts()
	for _, ch := range s.Children {
		c.add(ch.Counts())
	}
	return c
}

// Totals counts every stack of the run.
func (d Diff) Totals() Counts {
	var c Counts
	for _, s := range d.Stacks {
		c.add(s.Counts())
	}
	return c
}

// HasChanges reports whether the next deploy would change anything. NoEcho
// notes never count.
func (d Diff) HasChanges() bool { return d.Totals().Any() }

// Sort puts every list in a stable order so reports and digests do not depend
// on cdkd's iteration order.
func (d *Diff) Sort() {
	sortStacks(d.Stacks)
}

func sortStacks(stacks []StackDiff) {
	sortStable(stacks, func(a, b *StackDiff) int {
		return cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.Region, b.Region))
	})
	for i := range stacks {
		s := &stacks[i]
		sortStable(s.Changes, func(a, b *ResourceChange) int { return cmp.Compare(a.LogicalID, b.LogicalID) })
		for k := range s.Changes {
			c := &s.Changes[k]
			sortStable(c.PropertyChanges, func(a, b *PropertyChange) int { return cmp.Compare(a.Path, b.Path) })
			sortStable(c.AttributeChanges, func(a, b *AttributeChange) int { return cmp.Compare(a.Attribute, b.Attribute) })
			slices.Sort(c.CCAPI)
		}
		sortStable(s.OutputChanges, func(a, b *OutputChange) int { return cmp.Compare(a.Name, b.Name) })
		slices.Sort(s.NoEchoReaders)
		SortSecurity(s.Security)
		sortStacks(s.Children)
	}
}

// sortStable sorts s stably, moving each element about once. The lists
// sorted here hold large structs (a change is hundreds of bytes, with
// pointers): a comparison sort, slices.SortStableFunc's included, copies
// them many times over, and a comparator taking them by value once per
// comparison. A list already in order (cdkd's often are, and a decoded
// diff is sorted again before its report) is only read.
func sortStable[T any](s []T, compare func(a, b *T) int) {
	i := 1
	for i < len(s) && compare(&s[i-1], &s[i]) <= 0 {
		i++
	}
	if i >= len(s) {
		return
	}
	order := make([]int, len(s))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(compare(&s[a], &s[b]), cmp.Compare(a, b)) })
	// Position k takes the element at order[k]: follow each cycle of the
	// permutation, with one element held aside (-1 marks a placed one).
	for start := range s {
		if order[start] < 0 {
			continue
		}
		held := s[start]
		k := start
		for order[k] != start {
			from := order[k]
			s[k], order[k] = s[from], -1
			k = from
		}
		s[k], order[k] = held, -1
	}
}

// Walk calls fn for every stack, nested ones after their parent, with the
// display path of the stack ("Parent/Child").
func (d Diff) Walk(fn func(path string, s StackDiff)) {
	var walk func(prefix string, stacks []StackDiff)
	walk = func(prefix string, stacks []StackDiff) {
		for _, s := range stacks {
			p := s.Stack
			if prefix != "" {
				p = prefix + "/" + s.Stack
			}
			fn(p, s)
			walk(p, s.Children)
		}
	}
	walk("", d.Stacks)
}
