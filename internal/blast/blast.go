// Package blast is the picture of what a change touches: the replaced,
// deleted and access-broadening resources of a stack and the resources
// that reference them, in the same stack and across stacks, as a graph
// small enough to record with a review and to draw as a Mermaid flowchart.
//
// It is a view, never the record of a change: the deploy gate's digest
// does not cover it. It knows nothing of the model or the assembly (the
// diff builds its input from them), so the hidden header can carry a
// Graph and the renderers draw it without importing either.
package blast

import (
	"cmp"
	"maps"
	"slices"
	"unicode/utf8"
)

// Kind is what happens to a resource in the picture; its shape in the
// flowchart says it (with a legend), never colour alone.
type Kind string

// The kinds a node can have.
const (
	Replace Kind = "replace"
	Delete  Kind = "delete"
	Create  Kind = "create"
	Update  Kind = "update"
	// Broaden is a change that may widen access (a security row that
	// broadens); it is pictured when it is not a replacement or deletion.
	Broaden Kind = "broaden"
	// Unchanged is a resource the change set does not change that
	// references a changed one.
	Unchanged Kind = "unchanged"
)

// Focus reports whether a change of this kind gets a picture of what it
// touches: a replacement, a deletion, or a change that broadens access.
func (k Kind) Focus() bool { return k == Replace || k == Delete || k == Broaden }

// The collapse limits (docs/diff.md, "The picture of what a change
// touches"): above them, nodes are grouped so that a picture stays
// readable and its record stays small.
const (
	// MaxFocus is the most changed resources one stack's picture names;
	// the rest are one node, "and N more".
	MaxFocus = 20
	// MaxDependents is the most dependent nodes one stack's picture
	// shows one by one; above it, dependents are grouped by stack, type
	// and kind ("12 × AWS::IAM::Role"), and groups above it end in
	// "and N more".
	MaxDependents = 30
	// MaxStacks is the most stacks pictured; Graph.More counts the rest.
	MaxStacks = 10
	// labelMax is the most characters of a logical ID, type or stack name
	// a label shows.
	labelMax = 64
	// MaxEdges is the most edges one flowchart has: Mermaid refuses a
	// diagram with more than 500 ("Edge limit exceeded"), and GitHub then
	// shows an error box instead of the picture.
	MaxEdges = 500
	// MaxText is the most bytes of one flowchart's source: Mermaid's
	// maxTextSize (50,000 characters, never fewer than the bytes) refuses
	// a longer one the same way.
	MaxText = 50000
	// MaxReduced is the most stacks the reduced picture names (changed
	// and depending stacks together); the rest are "and N more stacks".
	// At 20 nodes it has at most 380 edges, within MaxEdges.
	MaxReduced = 20
)

// limits are one attempt's collapse limits: a stack that does not fit
// Mermaid's limits at one attempt is built again at the next, smaller one.
type limits struct{ focus, dependents int }

// attempts are the collapse limits tried in order. The last names one
// changed resource and groups every dependent: at most 1 + 1 + 1 nodes
// and 2 edges, of labels of at most 64 escaped characters, so it fits
// MaxEdges and MaxText whatever the names.
var attempts = []limits{{MaxFocus, MaxDependents}, {10, MaxDependents}, {10, 15}, {5, 10}, {2, 5}, {1, 1}}

// Graph is the picture of a diff: one flowchart per stack with a focus
// change. It is what the review records (in the comment's hidden header),
// so that the deploy draws it again from the review alone.
type Graph struct {
	Stacks []Stack `json:"stacks"`
	// More is the number of stacks with a focus change left out.
	More int `json:"more,omitempty"`
	// Reduced is the picture of every stack at once, one node per stack:
	// what a report draws when the full picture does not fit (nil in a
	// record written before it existed).
	Reduced *Reduced `json:"reduced,omitempty"`
}

// Reduced is the picture cut to one node per stack: the counts of its
// replaced, deleted and access-broadening resources and of what references
// them, and an edge from each stack that depends on one of them (it imports
// an export they feed) to that stack.
type Reduced struct {
	Stacks []Count `json:"stacks"`
	// Edges go from a depending stack to the changed one (indexes into
	// Stacks).
	Edges [][2]int `json:"edges,omitempty"`
	// More is the number of stacks left out (past MaxReduced).
	More int `json:"more,omitempty"`
}

// Count is one stack of the reduced picture. A stack that only depends on
// another's change has every count 0.
type Count struct {
	Stack   string `json:"stack"`
	Replace int    `json:"replace,omitempty"`
	Delete  int    `json:"delete,omitempty"`
	Broaden int    `json:"broaden,omitempty"`
	// Dependents is the number of resources, in this stack and others,
	// that reference its changed ones.
	Dependents int `json:"dependents,omitempty"`
}

// Kind is the kind a count's node shows: the most destructive it has.
func (c Count) Kind() Kind {
	switch {
	case c.Replace > 0:
		return Replace
	case c.Delete > 0:
		return Delete
	case c.Broaden > 0:
		return Broaden
	}
	return Unchanged
}

// Stack is one stack's flowchart.
type Stack struct {
	Stack string `json:"stack"`
	Nodes []Node `json:"nodes"`
	// Edges go from a node to one it references (indexes into Nodes).
	Edges [][2]int `json:"edges,omitempty"`
}

// Node is a resource, or a group of resources (N > 0).
type Node struct {
	ID   string `json:"id,omitempty"`
	Type string `json:"type,omitempty"`
	Kind Kind   `json:"kind"`
	// Stack is another stack's path, for a dependent across stacks.
	Stack string `json:"stack,omitempty"`
	// N > 0 makes the node a group: N resources of Type (any type when
	// Type is ""), named by no ID.
	N int `json:"n,omitempty"`
}

// Changed is a resource a stack's change set changes.
type Changed struct {
	ID, Type string
	Kind     Kind
}

// Dependent is a resource that references changed ones.
type Dependent struct {
	// Stack is the path of the stack that holds it when that is another
	// stack (it imports an export the changed resource feeds); "" for the
	// same stack.
	Stack    string
	ID, Type string
	// Kind is its own change (Create, Update, ...) or Unchanged when the
	// change set does not change it.
	Kind Kind
	// On are the logical IDs of the changed resources it references.
	On []string
}

// Input is what one stack's picture is built from.
type Input struct {
	Stack      string
	Changed    []Changed
	Dependents []Dependent
}

// Build makes the picture of the stacks in order, keeping those with a
// focus change, and collapses it above the limits and until each stack's
// flowchart keeps within Mermaid's (MaxEdges, MaxText). It returns nil when
// no stack has a focus change: such a diff gets no picture.
//
// redact (nil: none) is applied to every name before it is cut at 64
// characters, so that no fragment of a secret past the cut survives; the
// picture is built on the names as they are (a dependent is found by the
// changed resource's own logical ID), and only recorded redacted.
func Build(in []Input, redact func(string) string) *Graph {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	name := func(s string) string { return short(mapName(redact, s)) }
	g := &Graph{}
	for _, s := range in {
		if len(g.Stacks) == MaxStacks {
			if _, ok := buildStack(s, attempts[len(attempts)-1]); ok {
				g.More++
			}
			continue
		}
		for _, l := range attempts {
			st, ok := buildStack(s, l)
			if !ok {
				break
			}
			st = st.names(name)
			if st.Fits() {
				g.Stacks = append(g.Stacks, st)
				break
			}
			if l == attempts[len(attempts)-1] {
				g.More++ // cannot happen (see attempts); never drawn over the limits
			}
		}
	}
	if len(g.Stacks) == 0 && g.More == 0 {
		return nil
	}
	g.Reduced = reduce(in, name)
	return g
}

// Fits says whether the stack's flowchart keeps within Mermaid's limits,
// drawn with the options that write the most (Latest).
func (st Stack) Fits() bool {
	return len(st.Edges) <= MaxEdges && len(Draw(st, Latest)) <= MaxText && len(Mermaid(st)) <= MaxText
}

// reduce is the picture of every stack with a focus change at one node
// per stack, with the stacks that depend on them, names through name.
func reduce(in []Input, name func(string) string) *Reduced {
	r := &Reduced{}
	at := map[string]int{}
	index := func(stack string) (int, bool) {
		if i, ok := at[stack]; ok {
			return i, true
		}
		if len(r.Stacks) == MaxReduced {
			return 0, false
		}
		at[stack] = len(r.Stacks)
		r.Stacks = append(r.Stacks, Count{Stack: name(stack)})
		return at[stack], true
	}
	counted := map[string]bool{}
	for _, s := range in {
		c := Count{}
		focus := map[string]bool{}
		for _, ch := range s.Changed {
			switch ch.Kind {
			case Replace:
				c.Replace++
			case Delete:
				c.Delete++
			case Broaden:
				c.Broaden++
			default:
				continue
			}
			focus[ch.ID] = true
		}
		if len(focus) == 0 {
			continue
		}
		i, ok := index(s.Stack)
		if !ok {
			if !counted[s.Stack] {
				counted[s.Stack] = true
				r.More++
			}
			continue
		}
		from := map[int]bool{}
		for _, d := range merged(s.Dependents) {
			if d.Stack == "" && focus[d.ID] {
				continue
			}
			if !slices.ContainsFunc(d.On, func(id string) bool { return focus[id] }) {
				continue
			}
			c.Dependents++
			if d.Stack != "" && d.Stack != s.Stack {
				if j, ok := index(d.Stack); ok {
					from[j] = true
				} else if !counted[d.Stack] {
					counted[d.Stack] = true
					r.More++
				}
			}
		}
		c.Stack = r.Stacks[i].Stack
		r.Stacks[i] = c
		for _, j := range slices.Sorted(maps.Keys(from)) {
			r.Edges = append(r.Edges, [2]int{j, i})
		}
	}
	slices.SortFunc(r.Edges, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	r.Edges = slices.Compact(r.Edges)
	return r
}

// short is a name as the picture records it: cut after labelMax
// characters, marked with "…" (Label draws no more of it).
func short(s string) string {
	if utf8.RuneCountInString(s) <= labelMax {
		return s
	}
	n := 0
	for i := range s {
		if n == labelMax {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func buildStack(in Input, l limits) (Stack, bool) {
	focus := make([]Changed, 0, len(in.Changed))
	for _, c := range in.Changed {
		if c.Kind.Focus() {
			focus = append(focus, c)
		}
	}
	if len(focus) == 0 {
		return Stack{}, false
	}
	slices.SortFunc(focus, func(a, b Changed) int { return cmp.Compare(a.ID, b.ID) })
	st := Stack{Stack: in.Stack}
	index := map[string]int{} // a pictured focus resource's node
	for i, c := range focus {
		if i == l.focus {
			st.Nodes = append(st.Nodes, Node{Kind: c.Kind, N: len(focus) - l.focus})
			break
		}
		index[c.ID] = len(st.Nodes)
		st.Nodes = append(st.Nodes, Node{ID: c.ID, Type: c.Type, Kind: c.Kind})
	}
	deps := make([]Dependent, 0, len(in.Dependents))
	for _, d := range merged(in.Dependents) {
		if d.Stack == "" {
			if _, pictured := index[d.ID]; pictured {
				continue // a focus resource already, its references drawn below
			}
		}
		if slices.ContainsFunc(d.On, func(id string) bool { _, ok := index[id]; return ok }) {
			deps = append(deps, d)
		}
	}
	slices.SortFunc(deps, func(a, b Dependent) int { return cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.ID, b.ID)) })
	if len(deps) <= l.dependents {
		for _, d := range deps {
			st.edges(len(st.Nodes), d.On, index)
			st.Nodes = append(st.Nodes, Node{ID: d.ID, Type: d.Type, Kind: d.Kind, Stack: d.Stack})
		}
	} else {
		st.groups(deps, index, l.dependents)
	}
	// Focus resources that reference each other (a replaced role's policy).
	for _, d := range in.Dependents {
		if i, ok := index[d.ID]; ok && d.Stack == "" {
			st.edges(i, d.On, index)
		}
	}
	slices.SortFunc(st.Edges, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	st.Edges = slices.Compact(st.Edges)
	return st, true
}

// merged is deps with each resource once (one may be found both in the
// templates and in the deployed state), its references joined.
func merged(deps []Dependent) []Dependent {
	type key struct{ stack, id string }
	at := map[key]int{}
	out := make([]Dependent, 0, len(deps))
	for _, d := range deps {
		k := key{d.Stack, d.ID}
		if i, ok := at[k]; ok {
			on := append(slices.Clone(out[i].On), d.On...)
			slices.Sort(on)
			out[i].On = slices.Compact(on)
			continue
		}
		at[k] = len(out)
		out = append(out, d)
	}
	return out
}

// names is st with every name as the picture records it (name of it).
func (st Stack) names(name func(string) string) Stack {
	st.Stack = name(st.Stack)
	for i, n := range st.Nodes {
		n.ID, n.Type, n.Stack = name(n.ID), name(n.Type), name(n.Stack)
		st.Nodes[i] = n
	}
	return st
}

// edges adds an edge from node from to each pictured resource of on.
func (st *Stack) edges(from int, on []string, index map[string]int) {
	for _, id := range on {
		if to, ok := index[id]; ok && to != from {
			st.Edges = append(st.Edges, [2]int{from, to})
		}
	}
}

// groups adds deps (sorted) as one node per stack, type and kind, the
// largest first; above max, the last is "and N more".
func (st *Stack) groups(deps []Dependent, index map[string]int, max int) {
	type key struct {
		stack, typ string
		kind       Kind
	}
	type group struct {
		key
		n  int
		on []string
	}
	var gs []*group
	byKey := map[key]*group{}
	for _, d := range deps {
		k := key{d.Stack, d.Type, d.Kind}
		g := byKey[k]
		if g == nil {
			g = &group{key: k}
			byKey[k] = g
			gs = append(gs, g)
		}
		g.n++
		g.on = append(g.on, d.On...)
	}
	slices.SortStableFunc(gs, func(a, b *group) int { return cmp.Compare(b.n, a.n) })
	for i, g := range gs {
		if i == max-1 && len(gs) > max {
			rest := 0
			var on []string
			for _, r := range gs[i:] {
				rest += r.n
				on = append(on, r.on...)
			}
			st.edges(len(st.Nodes), on, index)
			st.Nodes = append(st.Nodes, Node{Kind: Unchanged, N: rest})
			return
		}
		st.edges(len(st.Nodes), g.on, index)
		st.Nodes = append(st.Nodes, Node{Type: g.typ, Kind: g.kind, Stack: g.stack, N: g.n})
	}
}

// MapNames returns a copy of g with every name (stack paths, logical IDs,
// types) replaced by f of it: redaction, before the names are recorded or
// drawn.
func (g *Graph) MapNames(f func(string) string) *Graph {
	if g == nil {
		return nil
	}
	out := &Graph{More: g.More, Stacks: make([]Stack, len(g.Stacks))}
	for i, st := range g.Stacks {
		nodes := make([]Node, len(st.Nodes))
		for j, n := range st.Nodes {
			n.ID, n.Type, n.Stack = mapName(f, n.ID), mapName(f, n.Type), mapName(f, n.Stack)
			nodes[j] = n
		}
		out.Stacks[i] = Stack{Stack: mapName(f, st.Stack), Nodes: nodes, Edges: slices.Clone(st.Edges)}
	}
	if r := g.Reduced; r != nil {
		counts := slices.Clone(r.Stacks)
		for i := range counts {
			counts[i].Stack = mapName(f, counts[i].Stack)
		}
		out.Reduced = &Reduced{Stacks: counts, Edges: slices.Clone(r.Edges), More: r.More}
	}
	return out
}

func mapName(f func(string) string, s string) string {
	if s == "" {
		return s
	}
	return f(s)
}
