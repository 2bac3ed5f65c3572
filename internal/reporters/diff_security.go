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
	all := model.Diff{Stacks: x.stacks}.SecurityChanges()
	if len(all) == 0 {
		return
	}
	broad := 0
	for _, c := range all {
		if c.Broadening() {
			broad++
		}
	}
	x.w.Block()
	x.w.Write("### 🔐 Security changes\n\n", securityHeadline(len(all), broad), "\n")
	switch x.rung.security {
	case securityCount:
		return
	case securityBroadList:
		if broad == 0 {
			return
		}
		x.w.Block()
		var rows []security.Change
		for _, c := range all {
			if c.Broadening() {
				rows = append(rows, c)
			}
		}
		writeList(x.w, len(rows), securityListCap, "", func(i int) {
			c := rows[i]
			x.w.Write("- ", statusCell(c), " ", Code(shortName(c.LogicalID)), " · ", Text(cut(security.Describe(c), securityShortCellMax)), "\n")
		})
		return
	}
	cell := securityCellMax
	if x.rung.values != valuesFull && x.rung.values != valuesCollapsed {
		cell = securityShortCellMax
	}
	model.Diff{Stacks: x.stacks}.Walk(func(path string, s model.StackDiff) {
		if len(s.Security) == 0 || x.w.Over() {
			return
		}
		x.w.Block()
		x.w.Write("#### ", stackSummary(path, s.Region), "\n")
		for _, g := range securityGroups {
			var rows []security.Change
			for _, c := range s.Security {
				if c.Group() == g.name {
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
				x.w.Write("| ", opCell(c.Op), " | ", statusCell(c), " | ", whereCell(c), " | ", strings.Join(g.row(c, cell), " | "), " |\n")
			}
			if g.name == "IAM statement changes" {
				notes(x.w, rows)
			}
		}
	})
}

// securityHeadline counts the rows; a broadening is named first.
func securityHeadline(n, broad int) string {
	total := countOf(n, "security change", "security changes")
	if broad == 0 {
		return total + ", none broadening."
	}
	return "> ⚠️ **" + strconv.Itoa(broad) + " broadening** of " + total + ": they widen who can do what, or who can reach what."
}

type securityGroup struct {
	name, header, rule string
	cells              func(c security.Change, max int) []string
}

// row is a row's cells after the first three. A row without its element
// (values that could not be read at all) says so in the first cell.
func (g securityGroup) row(c security.Change, max int) []string {
	if c.Kind == security.KindStatement && c.Statement == nil || c.Kind == security.KindRule && c.Rule == nil {
		out := make([]string, strings.Count(g.header, "|")-4)
		out[0] = Text(cut(strings.TrimSuffix(c.Item+": "+c.Note, ": "), max))
		return out
	}
	return g.cells(c, max)
}

var securityGroups = []securityGroup{
	{"IAM statement changes", "| ± | | where | effect | action | resource | principal | condition |", "|---|---|---|---|---|---|---|---|",
		func(c security.Change, max int) []string {
			s := c.Statement
			if s.Raw != "" {
				return []string{Text(s.Effect), CodeHTML(cut(s.Raw, max)), "", "", ""}
			}
			return []string{Text(s.Effect), valuesCell(notWord(s.NotAction), s.Actions, max), valuesCell(notWord(s.NotResource), s.Resources, max),
				valuesCell(notWord(s.NotPrincipal), s.Principals, max), valuesCell("", nonEmpty(s.Condition), max)}
		}},
	{"Managed policy changes", "| ± | | where | managed policy |", "|---|---|---|---|",
		func(c security.Change, max int) []string {
			return []string{valuesCell("", nonEmpty(c.ManagedPolicy), max)}
		}},
	{"Security group changes", "| ± | | where | group | direction | protocol | ports | peer |", "|---|---|---|---|---|---|---|---|",
		func(c security.Change, max int) []string {
			r := c.Rule
			if r.Raw != "" {
				return []string{CodeHTML(cut(r.Group, max)), Text(r.Direction), CodeHTML(cut(r.Raw, max)), "", ""}
			}
			return []string{CodeHTML(cut(r.Group, max)), Text(r.Direction), Text(r.Protocol), Text(r.Ports()), CodeHTML(cut(r.Peer, max))}
		}},
	{"SSO changes", "| ± | | where | item |", "|---|---|---|---|",
		func(c security.Change, max int) []string { return []string{valuesCell("", nonEmpty(c.Item), max)} }},
	{"Findings", "| ± | | where | finding |", "|---|---|---|---|",
		func(c security.Change, max int) []string { return []string{Text(cut(c.Item, max))} }}, // the status cell names the finding
}

// notes lists what explains a row beyond its cells (a trusted account).
func notes(w *Writer, rows []security.Change) {
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

// statusCell marks a row: what it does to access, and its findings.
func statusCell(c security.Change) string {
	var parts []string
	switch c.Status {
	case security.Broadening:
		parts = append(parts, "⚠️ **broadening**")
	case security.Unknown:
		parts = append(parts, "❓ **unknown** (counts as broadening)")
	case security.Narrowed:
		parts = append(parts, "narrowed")
	case security.Unresolved:
		parts = append(parts, "unresolved")
	}
	for _, f := range c.Findings {
		parts = append(parts, "🚩 "+Text(security.FindingText(f)))
	}
	return strings.Join(parts, "<br>")
}

func whereCell(c security.Change) string {
	s := CodeHTML(shortName(c.LogicalID))
	if c.Property != "" {
		s += "<br>" + CodeHTML(c.Property)
	}
	return s
}

// valuesCell is a list of values in one cell, one per line.
func valuesCell(prefix string, vals []string, max int) string {
	parts := make([]string, 0, len(vals))
	for _, v := range vals {
		parts = append(parts, CodeHTML(cut(v, max)))
	}
	s := strings.Join(parts, "<br>")
	if prefix != "" && s != "" {
		s = prefix + " " + s
	}
	return s
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
