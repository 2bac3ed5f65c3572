package reporters

import "github.com/cdkd-action/cdkd-action/internal/model"

// A stack section's lists: its resources (each changed property, a
// created resource's properties), its outputs, and the note on NoEcho
// readers.

func (x *diffWriter) resources(changes []model.ResourceChange) {
	if x.rung.resourceLines {
		if len(changes) > 0 {
			x.w.Block()
		}
		for i := range changes {
			if x.w.Over() {
				return
			}
			x.w.WriteString("- ")
			writeResourceHead(x.w, &changes[i], true)
			x.w.WriteString("\n")
		}
		return
	}
	for i := range changes {
		if x.w.Over() {
			return
		}
		ch := &changes[i]
		x.w.Block()
		writeResourceHead(x.w, ch, false)
		x.w.WriteString("\n")
		if ch.ChangeType == model.ChangeCreate {
			x.created(ch)
			continue
		}
		for _, p := range ch.PropertyChanges {
			x.property(p)
		}
		for _, a := range ch.AttributeChanges {
			x.item("attribute ", a.Attribute, []side{
				{name: "Old", v: a.Old, absent: "(absent)"},
				{name: "New", v: a.New, absent: "(removed)"},
			}, "")
		}
	}
}

// writeResourceHead writes a resource's line: action, logical id, type,
// and what sends it through Cloud Control. withForcing adds the paths
// forcing a replacement, for when properties are not listed.
func writeResourceHead(w *Writer, ch *model.ResourceChange, withForcing bool) {
	w.Write(actionLabel(ch.Action()), " ")
	w.WriteString(nameCode(ch.LogicalID))
	w.WriteString(" · ")
	w.WriteString(nameCode(ch.ResourceType))
	if withForcing && ch.Action() == model.ActionReplace {
		w.Write(" · forced by ", codeList(ch.ReplacingPaths(), -1))
	}
	if len(ch.CCAPI) > 0 {
		w.Write(" · via Cloud Control: ", codeList(ch.CCAPI, -1))
	}
}

// created lists what a resource is created with, collapsed: the review
// binds those values (see assembly.BindCreates), but they are long and
// rarely what a reviewer looks for first. An unbound creation says why.
func (x *diffWriter) created(ch *model.ResourceChange) {
	if ch.Unbound != "" {
		x.w.Write("- ⚠️ its properties are not part of this review: ", Text(ch.Unbound), "\n")
		return
	}
	if len(ch.PropertyChanges) == 0 {
		return
	}
	x.w.Block()
	x.w.WriteString(detailsOpen(countOf(len(ch.PropertyChanges), "property", "properties")+" it is created with", false))
	x.w.Block()
	for _, p := range ch.PropertyChanges {
		hidden := x.r.hidesWhole(p)
		x.item("", p.Path, []side{{name: "Value", v: p.New, absent: "(absent)", hidden: hidden}}, secretLabel(p.Secret))
	}
	x.w.Block()
	x.w.WriteString("</details>\n")
}

func (x *diffWriter) property(p model.PropertyChange) {
	labels := secretLabel(p.Secret)
	if p.RequiresReplacement {
		labels += " · ⚠️ **requires replacement**"
		if p.ReplacementPropagated != nil && *p.ReplacementPropagated {
			labels += " (propagated)"
		}
	}
	hidden := x.r.hidesWhole(p)
	x.item("", p.Path, []side{
		{name: "Old", v: p.Old, absent: "(absent)", hidden: hidden},
		{name: "New", v: p.New, absent: "(removed)", hidden: hidden},
	}, labels)
}

func (x *diffWriter) outputs(outs []model.OutputChange) {
	if len(outs) == 0 {
		return
	}
	x.w.Block()
	x.w.WriteString("**Outputs**\n")
	for _, o := range outs {
		if x.w.Over() {
			return
		}
		var labels string
		if o.Export {
			labels += " · export"
		}
		labels += secretLabel(o.Secret)
		hidden := o.Secret != model.SecretNone
		old := side{name: "Old", v: o.Old, absent: "(absent)", hidden: hidden, redacted: o.OldValueRedacted}
		cur := side{name: "New", v: o.New, absent: "(removed)", hidden: hidden}
		sides := []side{old, cur}
		switch o.ChangeType {
		case model.OutputAdd:
			cur.name = "Value"
			sides = []side{cur}
		case model.OutputRemove:
			old.name = "Was"
			sides = []side{old}
		}
		x.item(outputLabel(o.ChangeType)+" ", o.Name, sides, labels)
	}
}

// item renders one changed property, attribute or output as a list item:
// short values inline ("old → new"), long ones in a collapsed section.
func (x *diffWriter) item(head, name string, sides []side, labels string) {
	if x.w.Over() {
		return
	}
	what := "old and new values"
	if len(sides) == 1 {
		what = "value"
	}
	n := valueItem{head: head, name: name, labels: labels, sides: sides, what: what, diffWhat: "changes (- old, + new)"}.write(x.w, x.valueLimits())
	if x.level == levelFull {
		x.widest = max(x.widest, n)
	}
}

// valueLimits is how much of each value the level shows.
func (x *diffWriter) valueLimits() valueLimits {
	return newValueLimits(x.budget, x.r.FullReportHint, x.rung.values)
}

// noEchoNote says which unchanged resources read a NoEcho parameter. It is a
// note, never a change: it does not count anywhere.
func (x *diffWriter) noEchoNote(readers []string) {
	if len(readers) == 0 {
		return
	}
	limit := x.rung.noEchoCap
	x.w.Block()
	x.w.Write("ℹ️ ", countOf(len(readers), "unchanged resource reads", "unchanged resources read"), " a NoEcho parameter")
	x.w.Write("; cdkd cannot tell whether its value changed: ", codeList(readers, limit), "\n")
}
