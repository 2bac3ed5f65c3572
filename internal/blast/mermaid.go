package blast

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The flowchart keeps to syntax Mermaid 10.x and the version
// tools/mermaid-check pins both parse: `flowchart`, the classic node
// shapes, quoted labels with entity codes, `subgraph ... end` and `-->`,
// and (Options.Classes) the fixed class definitions of ClassDefs with
// `class` lines naming generated node IDs. No user text is ever written
// into a class or style line, and no style, click, link or init directive
// is ever written.

// Options are what a report layout draws beyond what every layout shares.
type Options struct {
	// Classes gives replaced and deleted nodes, and their legend entries,
	// the fixed colours of ClassDefs: on GitHub's default theme they
	// otherwise differ only by outline.
	Classes bool
	// ColonsAsCodes writes ':' in a label as an entity code, so that no
	// line of ours has the "style ...:...#...;" or "classDef ...:...#...;"
	// form, whose last ';' Mermaid strips before parsing (garbling the
	// entity code it ends).
	ColonsAsCodes bool
}

// Latest are the options of the layout this release writes (layout 4 on).
var Latest = Options{Classes: true, ColonsAsCodes: true}

// ClassDefs are the fixed classes Options.Classes draws: the text against
// the fill has a contrast ratio of at least 4.5:1 (WCAG AA), which does
// not depend on the page's background (GitHub's light #ffffff or dark
// #0d1117), since the fill is opaque. tools/mermaid-check allows exactly
// these class definitions and nothing else.
var ClassDefs = []ClassDef{
	{Kind: Replace, Name: "replaced", Fill: "#fde68a", Stroke: "#92400e", Color: "#1f2937"},
	{Kind: Delete, Name: "deleted", Fill: "#fecaca", Stroke: "#991b1b", Color: "#1f2937"},
}

// ClassDef is one fixed class: a kind's colours.
type ClassDef struct {
	Kind                      Kind
	Name, Fill, Stroke, Color string
}

// Line is the classDef line that defines it.
func (c ClassDef) Line() string {
	return "classDef " + c.Name + " fill:" + c.Fill + ",stroke:" + c.Stroke + ",color:" + c.Color
}

// shapes opens and closes a node of each kind: the kind shows as a shape,
// named in the legend, never by colour alone.
var shapes = map[Kind][2]string{
	Replace:   {`{{"`, `"}}`}, // hexagon
	Delete:    {`>"`, `"]`},   // flag
	Create:    {`(["`, `"])`}, // stadium
	Update:    {`("`, `")`},   // rounded
	Broaden:   {`[/"`, `"/]`}, // parallelogram
	Unchanged: {`["`, `"]`},   // rectangle
}

// legend names each kind, in the order the legend lists them.
var legend = []struct {
	kind Kind
	text string
}{
	{Replace, "replaced"},
	{Delete, "deleted"},
	{Broaden, "broadens access"},
	{Create, "created"},
	{Update, "updated"},
	{Unchanged, "unchanged, references a change"},
}

// Mermaid is the flowchart of one stack's picture: the source of a
// ```mermaid block. Node IDs are generated (n0, n1, ..., k0 for the
// legend, s0 for another stack's box), never names; every label is a
// logical ID, a resource type or a stack name written with Label.
func Mermaid(st Stack) string { return Draw(st, Options{}) }

// Draw is Mermaid with a layout's options.
func Draw(st Stack, o Options) string {
	label := o.label
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	// Dependents in other stacks are drawn in one box per stack.
	boxes := map[string][]int{}
	var order []string
	for i, n := range st.Nodes {
		if n.Stack == "" {
			node(&b, "  ", i, n, label)
			continue
		}
		if _, ok := boxes[n.Stack]; !ok {
			order = append(order, n.Stack)
		}
		boxes[n.Stack] = append(boxes[n.Stack], i)
	}
	for j, name := range order {
		b.WriteString("  subgraph s" + strconv.Itoa(j) + `["` + label("stack "+name) + "\"]\n")
		for _, i := range boxes[name] {
			node(&b, "    ", i, st.Nodes[i], label)
		}
		b.WriteString("  end\n")
	}
	for _, e := range st.Edges {
		b.WriteString("  n" + strconv.Itoa(e[0]) + " --> n" + strconv.Itoa(e[1]) + "\n")
	}
	writeLegend(&b, st.Nodes, false)
	o.classes(&b, st.Nodes)
	return b.String()
}

// label is Label with o's options.
func (o Options) label(s string) string {
	l := Label(s)
	if o.ColonsAsCodes {
		l = strings.ReplaceAll(l, ":", "#58;")
	}
	return l
}

// classes writes the class definitions and the class of each node (n0,
// ...) and legend entry (k0, ...) whose kind has one, when o draws them.
func (o Options) classes(b *strings.Builder, nodes []Node) {
	if !o.Classes {
		return
	}
	for _, c := range ClassDefs {
		var ids []string
		for i, n := range nodes {
			if n.Kind == c.Kind {
				ids = append(ids, "n"+strconv.Itoa(i))
			}
		}
		if len(ids) == 0 {
			continue
		}
		for i, l := range legend {
			if l.kind == c.Kind {
				ids = append(ids, "k"+strconv.Itoa(i))
			}
		}
		b.WriteString("  " + c.Line() + "\n")
		b.WriteString("  class " + strings.Join(ids, ",") + " " + c.Name + "\n")
	}
}

// writeLegend names the shape of each kind that nodes have; in the
// reduced picture (stacks) a plain box is a stack that depends on a change.
func writeLegend(b *strings.Builder, nodes []Node, stacks bool) {
	b.WriteString("  subgraph legend[\"Legend\"]\n")
	for i, l := range legend {
		if kindIn(nodes, l.kind) {
			s, text := shapes[l.kind], l.text
			if stacks && l.kind == Unchanged {
				text = "unchanged stack, depends on a change"
			}
			b.WriteString("    k" + strconv.Itoa(i) + s[0] + text + s[1] + "\n")
		}
	}
	b.WriteString("  end\n")
}

func kindIn(nodes []Node, k Kind) bool {
	for _, n := range nodes {
		if n.Kind == k {
			return true
		}
	}
	return false
}

func node(b *strings.Builder, indent string, i int, n Node, label func(string) string) {
	s, ok := shapes[n.Kind]
	if !ok {
		s = shapes[Unchanged]
	}
	var text string
	switch {
	case n.N > 0 && n.Type == "":
		text = "and " + strconv.Itoa(n.N) + " more"
	case n.N > 0:
		text = strconv.Itoa(n.N) + " × " + label(n.Type)
	default:
		text = label(n.ID) + "<br/>" + label(n.Type)
	}
	b.WriteString(indent + "n" + strconv.Itoa(i) + s[0] + text + s[1] + "\n")
}

// Label writes a name (a logical ID, a type, a stack name: chosen by whoever
// writes the app) as text inside a quoted Mermaid label: ASCII letters,
// digits, space, '_', '-', '.', ':' and '*' (the redactor's "***", which
// the sink writes after rendering) as they are, any other printable
// character as a Mermaid entity code (#60; for '<'), and a control or
// format character (a newline, a bidi override) as U+FFFD. Nothing in it
// can end the label, open HTML or Markdown, or start a directive, a
// link, a style or a node. Longer names are cut at labelMax characters.
func Label(s string) string {
	cut := false
	if utf8.RuneCountInString(s) > labelMax {
		n := 0
		for i := range s {
			if n == labelMax {
				s, cut = s[:i], true
				break
			}
			n++
		}
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" _-.:*", r)):
			b.WriteRune(r)
		case r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' || unicode.Is(unicode.Cf, r):
			b.WriteString("#65533;")
		default:
			b.WriteString("#" + strconv.Itoa(int(r)) + ";")
		}
	}
	if cut {
		b.WriteString("#8230;")
	}
	return b.String()
}

// MermaidReduced is the flowchart of the reduced picture: one node per
// stack, labelled with its stack name and the counts of what changes in it
// and what references that, shaped by the most destructive of its changes,
// and an arrow from each stack that depends on a change to its stack.
// Node IDs are generated as Mermaid's are; at most MaxReduced stacks and
// one "and N more stacks" node, so it keeps within MaxEdges and MaxText.
func MermaidReduced(r *Reduced) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	nodes := make([]Node, 0, len(r.Stacks)+1)
	o := Latest
	for i, c := range r.Stacks {
		text := "stack " + o.label(c.Stack)
		var counts []string
		for _, n := range []struct {
			n    int
			what string
		}{{c.Replace, "replaced"}, {c.Delete, "deleted"}, {c.Broaden, "broadening access"}} {
			if n.n > 0 {
				counts = append(counts, strconv.Itoa(n.n)+" "+n.what)
			}
		}
		if len(counts) > 0 {
			text += "<br/>" + strings.Join(counts, ", ")
		}
		if c.Dependents > 0 {
			text += "<br/>referenced by " + strconv.Itoa(c.Dependents) + " resource" + plural(c.Dependents)
		}
		s := shapes[c.Kind()]
		b.WriteString("  n" + strconv.Itoa(i) + s[0] + text + s[1] + "\n")
		nodes = append(nodes, Node{Kind: c.Kind()})
	}
	if r.More > 0 {
		s := shapes[Unchanged]
		b.WriteString("  n" + strconv.Itoa(len(r.Stacks)) + s[0] + "and " + strconv.Itoa(r.More) + " more stack" + plural(r.More) + s[1] + "\n")
	}
	for _, e := range r.Edges {
		b.WriteString("  n" + strconv.Itoa(e[0]) + " --> n" + strconv.Itoa(e[1]) + "\n")
	}
	writeLegend(&b, nodes, true)
	o.classes(&b, nodes)
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
