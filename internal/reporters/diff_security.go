package reporters

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// How much of the security section a rung shows.
type securityDetail int

const (
	securityTables    securityDetail = iota // a table per kind, per stack
	securityBroadList                       // the broadening rows, one line each
	securityCount                           // one line of counts
)

// Cell lengths of the security tables, in characters per value.
const (
	securityCellMax      = 300
	securityShortCellMax = 80
	securityListCap      = 20
)

// securitySection is the "Security changes" section, above the resource
// list: per stack, tables of statement, managed policy, security group and
// SSO changes and of findings, with broadening rows marked.
func (x *diffWriter) securitySection() {
	all := x.securityRows
	if len(all) == 0 {
		return
	}
	x.w.Block()
	x.w.Write("### 🔐 Security changes\n\n", securityHeadline(len(all), x.broadening, x.r.explainsUnresolved() && slices.ContainsFunc(all, func(c *security.Change) bool {
		return x.r.broadening(c) && c.Status != security.Broadening
	})), "\n")
	switch x.rung.security {
	case securityCount:
		return
	case securityBroadList:
		if x.broadening == 0 {
			return
		}
		x.w.Block()
		rows := make([]*security.Change, 0, x.broadening)
		for _, c := range all {
			if x.r.broadening(c) {
				rows = append(rows, c)
			}
		}
		writeList(x.w, len(rows), securityListCap, "", func(i int) {
			c := rows[i]
			x.w.WriteString("- ")
			writeStatusCell(x.w, c, x.r.explainsUnresolved())
			x.w.WriteString(" ")
			x.w.WriteString(nameCode(c.LogicalID))
			x.w.Write(" · ", Text(cut(security.Describe(*c), securityShortCellMax)), "\n")
		})
		return
	}
	cell := securityCellMax
	if x.rung.values != valuesFull && x.rung.values != valuesCollapsed {
		cell = securityShortCellMax
	}
	var rows []*security.Change // one group's rows of one stack, reused
	model.Diff{Stacks: x.stacks}.Walk(func(path string, s model.StackDiff) {
		if len(s.Security) == 0 || x.w.Over() {
			return
		}
		x.w.Block()
		x.w.Write("#### ", stackSummary(path, s.Region), "\n")
		for _, g := range securityGroups {
			rows = rows[:0]
			for i := range s.Security {
				if c := &s.Security[i]; c.Group() == g.name {
					rows = append(rows, c)
				}
			}
			if len(rows) == 0 {
				continue
			}
			x.w.Block()
			x.w.Write("**", g.name, "**\n\n", g.header, "\n", g.rule, "\n")
			for _, c := range rows {
				if x.w.Over() {
					return
				}
				x.w.Write("| ", opCell(c.Op), " | ")
				writeStatusCell(x.w, c, x.r.explainsUnresolved())
				x.w.WriteString(" | ")
				writeWhereCell(x.w, c)
				g.row(cells{x.w}, c, cell)
				x.w.WriteString(" |\n")
			}
			if g.name == "IAM statement changes" {
				notes(x.w, rows)
			}
		}
	})
}

// securityRows are the security rows of every stack, nested ones after
// their parent, as model.Diff.SecurityChanges lists them: pointers, not
// copies of thousands of rows at each level of the ladder.
func securityRows(stacks []model.StackDiff) []*security.Change {
	var out []*security.Change
	model.Diff{Stacks: stacks}.Walk(func(_ string, s model.StackDiff) {
		for i := range s.Security {
			out = append(out, &s.Security[i])
		}
	})
	return out
}

// securityHeadline counts the rows; a broadening is named first. mayWiden
// (layout 3 on) says that some of them (unknown, unresolved) may widen
// access, not known to.
func securityHeadline(n, broad int, mayWiden bool) string {
	total := countOf(n, "security change", "security changes")
	if broad == 0 {
		return total + ", none broadening."
	}
	if mayWiden {
		return "> ⚠️ **" + strconv.Itoa(broad) + " broadening** of " + total + ": they widen, or may widen (unknown, unresolved), who can do what, or who can reach what."
	}
	return "> ⚠️ **" + strconv.Itoa(broad) + " broadening** of " + total + ": they widen who can do what, or who can reach what."
}

type securityGroup struct {
	name, header, rule string
	cells              func(r cells, c *security.Change, max int)
}

// cells writes a table row's cells straight to the report: a diff of
// thousands of policies has thousands of rows.
type cells struct{ w *Writer }

// next starts the next cell and returns the writer to write it with.
func (r cells) next() *Writer {
	r.w.WriteString(" | ")
	return r.w
}

// skip leaves the next n cells empty.
func (r cells) skip(n int) {
	for range n {
		r.next()
	}
}

// row writes a row's cells after the first three. A row without its
// element (values that could not be read at all) says so in the first cell.
func (g securityGroup) row(r cells, c *security.Change, max int) {
	if c.Kind == security.KindStatement && c.Statement == nil || c.Kind == security.KindRule && c.Rule == nil {
		r.next().WriteString(Text(cut(strings.TrimSuffix(c.Item+": "+c.Note, ": "), max)))
		r.skip(strings.Count(g.header, "|") - 5)
		return
	}
	g.cells(r, c, max)
}

var securityGroups = []securityGroup{
	{"IAM statement changes", "| ± | | where | effect | action | resource | principal | condition |", "|---|---|---|---|---|---|---|---|",
		func(r cells, c *security.Change, max int) {
			s := c.Statement
			r.next().WriteString(Text(s.Effect))
			if s.Raw != "" {
				r.next().WriteString(CodeHTML(cut(s.Raw, max)))
				r.skip(3)
				return
			}
			writeValuesCell(r.next(), notWord(s.NotAction), s.Actions, max)
			writeValuesCell(r.next(), notWord(s.NotResource), s.Resources, max)
			writeValuesCell(r.next(), notWord(s.NotPrincipal), s.Principals, max)
			writeValuesCell(r.next(), "", nonEmpty(s.Condition), max)
		}},
	{"Managed policy changes", "| ± | | where | managed policy |", "|---|---|---|---|",
		func(r cells, c *security.Change, max int) {
			writeValuesCell(r.next(), "", nonEmpty(c.ManagedPolicy), max)
		}},
	{"Security group changes", "| ± | | where | group | direction | protocol | ports | peer |", "|---|---|---|---|---|---|---|---|",
		func(r cells, c *security.Change, max int) {
			rule := c.Rule
			r.next().WriteString(CodeHTML(cut(rule.Group, max)))
			r.next().WriteString(Text(rule.Direction))
			if rule.Raw != "" {
				r.next().WriteString(CodeHTML(cut(rule.Raw, max)))
				r.skip(2)
				return
			}
			r.next().WriteString(Text(rule.Protocol))
			r.next().WriteString(Text(rule.Ports()))
			r.next().WriteString(CodeHTML(cut(rule.Peer, max)))
		}},
	{"SSO changes", "| ± | | where | item |", "|---|---|---|---|",
		func(r cells, c *security.Change, max int) { writeValuesCell(r.next(), "", nonEmpty(c.Item), max) }},
	{"Findings", "| ± | | where | finding |", "|---|---|---|---|",
		func(r cells, c *security.Change, max int) { r.next().WriteString(Text(cut(c.Item, max))) }}, // the status cell names the finding
}

// notes lists what explains a row beyond its cells (a trusted account).
func notes(w *Writer, rows []*security.Change) {
	var seen []string
	for _, c := range rows {
		if c.Note != "" && !slices.Contains(seen, c.Note) {
			seen = append(seen, c.Note)
		}
	}
	if len(seen) == 0 {
		return
	}
	w.Block()
	for _, n := range seen {
		w.Write("- ", Text(cut(n, securityCellMax)), "\n")
	}
}

func opCell(o security.Op) string {
	if o == security.OpRemove {
		return "−"
	}
	return "+"
}

// writeStatusCell marks a row: what it does to access, and its findings,
// one per line; explain says why an unresolved row could not be evaluated.
func writeStatusCell(w *Writer, c *security.Change, explain bool) {
	status := ""
	switch c.Status {
	case security.Broadening:
		status = "⚠️ **broadening**"
	case security.Unknown:
		status = "❓ **unknown** (counts as broadening)"
	case security.Narrowed:
		status = "narrowed"
	case security.Unresolved:
		status = "unresolved"
		if explain {
			status = "❓ **unresolved** (counts as broadening: it holds a value known only at the deploy, so it cannot be evaluated)"
		}
	}
	w.WriteString(status)
	for i, f := range c.Findings {
		if i > 0 || status != "" {
			w.WriteString("<br>")
		}
		w.Write("🚩 ", Text(security.FindingText(f)))
	}
}

func writeWhereCell(w *Writer, c *security.Change) {
	w.WriteString(CodeHTML(shortName(c.LogicalID)))
	if c.Property != "" {
		w.WriteString("<br>")
		w.WriteString(CodeHTML(c.Property))
	}
}

// writeValuesCell writes a list of values in one cell, one per line, after
// prefix when there is any.
func writeValuesCell(w *Writer, prefix string, vals []string, max int) {
	if prefix != "" && len(vals) > 0 {
		w.Write(prefix, " ")
	}
	for i, v := range vals {
		if i > 0 {
			w.WriteString("<br>")
		}
		w.WriteString(CodeHTML(cut(v, max)))
	}
}

func notWord(not bool) string {
	if not {
		return "**Not**"
	}
	return ""
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// cut shortens s to n characters, saying how many were left out.
func cut(s string, n int) string {
	short, rest := cutRunes(s, n)
	if rest > 0 {
		return short + "… " + moreChars(rest)
	}
	return short
}
