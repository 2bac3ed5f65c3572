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
)

// Graph is the picture of a diff: one flowchart per stack with a focus
// change. It is what the review records (in the comment's hidden header),
// so that the deploy draws it again from the review alone.
type Graph struct {
	Stacks []Stack `json:"stacks"`
	// More is the number of stacks with a focus change left out.
	More int `json:"more,omitempty"`
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
// focus change, and collapses it above the limits. It returns nil when no
// stack has a focus change: such a diff gets no picture.
func Build(in []Input) *Graph {
	g := &Graph{}
	for _, s := range in {
		st, ok := buildStack(s)
		if !ok {
			continue
		}
		if len(g.Stacks) == MaxStacks {
			g.More++
			continue
		}
		g.Stacks = append(g.Stacks, st.shortNames())
	}
	if len(g.Stacks) == 0 {
		return nil
	}
	return g
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

func buildStack(in Input) (Stack, bool) {
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
		if i == MaxFocus {
			st.Nodes = append(st.Nodes, Node{Kind: c.Kind, N: len(focus) - MaxFocus})
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
	if len(deps) <= MaxDependents {
		for _, d := range deps {
			st.edges(len(st.Nodes), d.On, index)
			st.Nodes = append(st.Nodes, Node{ID: d.ID, Type: d.Type, Kind: d.Kind, Stack: d.Stack})
		}
	} else {
		st.groups(deps, index)
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

// shortNames is st with every name cut as the picture records it.
func (st Stack) shortNames() Stack {
	st.Stack = short(st.Stack)
	for i, n := range st.Nodes {
		n.ID, n.Type, n.Stack = short(n.ID), short(n.Type), short(n.Stack)
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
// largest first; above MaxDependents, the last is "and N more".
func (st *Stack) groups(deps []Dependent, index map[string]int) {
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
		if i == MaxDependents-1 && len(gs) > MaxDependents {
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
	return out
}

func mapName(f func(string) string, s string) string {
	if s == "" {
		return s
	}
	return f(s)
}
