package reporters

import "github.com/cdkd-action/cdkd-action/internal/model"

// comparison lists what differs from the reviewed change set.
func (x *deployWriter) comparison() {
	c := x.r.Comparison
	if c == nil && x.r.ComparisonNote == "" {
		return
	}
	x.w.Block()
	x.w.WriteString("#### What changed since the review\n")
	if c != nil {
		if c.Empty() {
			x.w.Block()
			x.w.WriteString("No item differs, yet the digests do: the reviewed change set was computed differently.\n")
		}
		limit := x.capped(len(c.Items), x.lv.compareCap)
		x.w.Block()
		if !writeList(x.w, len(c.Items), limit, "", func(i int) { x.item(c.Items[i]) }) {
			return
		}
	}
	if x.r.ComparisonNote != "" {
		x.w.Block()
		x.w.Write(Text(x.r.ComparisonNote), "\n")
	}
}

func (x *deployWriter) item(it model.ItemDelta) {
	what := "resource"
	if it.Output {
		what = "output"
	}
	var head string
	switch it.Delta {
	case model.DeltaAdded:
		head = "➕ **new** " + what
	case model.DeltaRemoved:
		head = "➖ **no longer** in the change set:"
	default:
		head = "🔄 **changed** " + what
	}
	x.w.Write("- ", head, " ", nameCode(it.Name))
	if it.Type != "" {
		x.w.Write(" · ", nameCode(it.Type))
	}
	x.w.Write(" in ", nameCode(it.Stack))
	switch {
	case it.Reviewed != "" && it.Current != "":
		x.w.Write(": reviewed ", actionWord(it.Reviewed), ", now ", actionWord(it.Current))
	case it.Current != "":
		x.w.Write(": now ", actionWord(it.Current))
	case it.Reviewed != "":
		x.w.Write(": reviewed ", actionWord(it.Reviewed))
	}
	x.w.WriteString("\n")
	if !x.lv.paths {
		return
	}
	for _, p := range it.Paths {
		if x.w.Over() {
			return
		}
		x.w.Write("  - ", pathName(p), ": ")
		switch {
		case p.Reviewed != nil && p.Current != nil:
			x.w.Write("reviewed ", x.side(p.Reviewed), ", now ", x.side(p.Current), behindTheTokens(p))
		case p.Current != nil:
			x.w.Write("added, ", x.side(p.Current))
		case p.Reviewed != nil:
			x.w.Write("no longer changes (reviewed ", x.side(p.Reviewed), ")")
		}
		x.w.WriteString("\n")
	}
}

// behindTheTokens says that a part whose "***" read alike changed behind
// them: its hidden-value tokens differ, and the digest compares them.
func behindTheTokens(p model.PathDelta) string {
	r, c := p.Reviewed, p.Current
	if r.OldToken == c.OldToken && r.NewToken == c.NewToken {
		return ""
	}
	return " (another hidden value)"
}

func pathName(p model.PathDelta) string {
	switch p.Kind {
	case model.PathAttribute:
		return "attribute " + nameCode(p.Path)
	case model.PathType:
		return "resource type"
	case model.PathCloudControl:
		return "Cloud Control routing"
	case model.PathOutput:
		return "value"
	}
	return nameCode(p.Path)
}

// side renders one side of a part as "old → new", hidden at a secret
// position.
func (x *deployWriter) side(s *model.SideValue) string {
	show := func(v model.Value, absent string) string {
		switch {
		case !v.Present():
			return absent
		case s.Secret != model.SecretNone:
			return Code(model.Hidden)
		}
		return ShowValue(v, true).Inline
	}
	out := show(s.Old, "(absent)") + " → " + show(s.New, "(removed)")
	if s.RequiresReplacement {
		out += " (requires replacement)"
	}
	return out
}
