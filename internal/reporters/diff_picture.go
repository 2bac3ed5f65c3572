package reporters

import (
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/blast"
)

// picture is the "What the changes touch" section: one Mermaid flowchart
// per stack with a replacement, a deletion or a broadening security change
// (DiffReport.Picture). It is a view, never the record: only the rungs that
// keep every change line whole show it (the first), so it is dropped
// before any change line is, and a shortened report says it was.
func (x *diffWriter) picture() {
	if !x.r.drawsPicture() {
		return
	}
	g := x.r.Picture
	if g == nil {
		if x.r.PictureIn != "" && x.rung.picture {
			x.w.Block()
			x.w.Write("🗺️ The picture of what the changes touch is in ", x.r.PictureIn, ".\n")
		}
		return
	}
	if !x.rung.picture {
		x.w.Block()
		x.w.WriteString("🗺️ The picture of what the changes touch is left out to fit.\n")
		return
	}
	bytes, chars := x.w.Len(), x.w.Chars()
	x.w.Block()
	x.w.WriteString("### 🗺️ What the changes touch\n\n")
	x.w.WriteString("The replaced, deleted and access-broadening resources, and what references them " +
		"(an arrow points from a resource to one it references; the legend names the shapes).\n")
	for _, st := range g.Stacks {
		if x.w.Over() {
			return
		}
		x.w.Block()
		x.w.Write("#### ", nameCode(st.Stack), "\n\n")
		x.w.Fence(blast.Mermaid(st), "mermaid", "")
	}
	if g.More > 0 {
		x.w.Block()
		x.w.Write("And ", strconv.Itoa(g.More), " more stack", plural(g.More),
			" with such changes, not pictured (at most ", strconv.Itoa(blast.MaxStacks), ").\n")
	}
	if x.level == levelFull {
		x.pictureBytes, x.pictureChars = x.w.Len()-bytes, x.w.Chars()-chars
	}
}
