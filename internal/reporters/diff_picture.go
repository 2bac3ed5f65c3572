package reporters

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/blast"
)

// The headings and lines of the picture section. PictureShown reads them
// back from a rendered report, so they are written here once.
const (
	pictureHeading = "### 🗺️ What the changes touch\n"
	// reducedLine opens the reduced picture (layout 4 on).
	reducedLine = "🗺️ **The picture of what the changes touch, one node per stack:** the full picture does not fit"
	leftOutLine = "🗺️ The picture of what the changes touch is left out to fit.\n"
)

// What a report shows of the picture (PictureShown).
const (
	PictureDrawn   = "drawn"
	PictureReduced = "reduced"
	PictureLeftOut = "left out"
	PictureNone    = ""
	// PictureNotWritten: the place that would show it was not written (a
	// token without write access, a pull request that moved on).
	PictureNotWritten = "not written"
)

// PicturePointer is the line a channel that does not show the picture
// writes about where it is: where names the place (trusted Markdown),
// shown what it shows ("" for none: no line).
func PicturePointer(where, shown string) string {
	switch shown {
	case PictureDrawn:
		return "🗺️ The picture of what the changes touch is in " + where + ".\n"
	case PictureReduced:
		return "🗺️ The picture of what the changes touch is in " + where + ", reduced to one node per stack to fit.\n"
	case PictureLeftOut:
		return "🗺️ The picture of what the changes touch was left out of " + where + " to fit: it is shown nowhere.\n"
	case PictureNotWritten:
		return "🗺️ The picture of what the changes touch is shown nowhere: " + where + " could not be written (the log says why).\n"
	}
	return ""
}

// PictureShown says what a rendered diff report md shows of the picture
// of what the changes touch: the full picture, the reduced one (one node
// per stack), a line saying it was left out, or none of these. The check
// run and the job summary point to the picture only as the comment shows
// it.
func PictureShown(md string) string {
	switch {
	case containsLine(md, pictureHeading):
		return PictureDrawn
	case containsLine(md, reducedLine):
		return PictureReduced
	case containsLine(md, leftOutLine):
		return PictureLeftOut
	}
	return PictureNone
}

// picture is the "What the changes touch" section: one Mermaid flowchart
// per stack with a replacement, a deletion or a broadening security change
// (DiffReport.Picture). It is a view, never the record: only the rungs that
// keep every change line whole show it (the first), so it is dropped
// before any change line is, and a shortened report says it was. From
// layout 4 on, where the full picture is not shown, the reduced one (one
// node per stack, a few hundred characters) is, on every rung but the
// last.
func (x *diffWriter) picture() {
	if !x.r.drawsPicture() {
		return
	}
	g := x.r.Picture
	if g != nil && len(g.Stacks) == 0 && !x.r.reducesPicture() {
		g = nil // a record of the reduced picture alone, which older layouts never drew
	}
	if g == nil {
		// From layout 4 on, every level says where the picture is: a
		// shortened check run still points to it.
		if line := PicturePointer(x.r.PictureIn, x.r.PictureShown); x.r.PictureIn != "" && line != "" && (x.rung.picture || x.r.reducesPicture()) {
			x.w.Block()
			x.w.WriteString(line)
		}
		return
	}
	reduced := g.Reduced != nil && x.r.reducesPicture()
	if !x.rung.picture || len(g.Stacks) == 0 {
		if reduced && x.rung.reducedPicture {
			x.reduced(g.Reduced, len(g.Stacks) == 0 && x.rung.picture)
			return
		}
		x.w.Block()
		x.w.WriteString(leftOutLine)
		return
	}
	bytes, chars := x.w.Len(), x.w.Chars()
	x.w.Block()
	x.w.WriteString(pictureHeading + "\n")
	x.w.WriteString("The replaced, deleted and access-broadening resources, and what references them " +
		"(an arrow points from a resource to one it references; the legend names the shapes).\n")
	for _, st := range g.Stacks {
		if x.w.Over() {
			return
		}
		x.w.Block()
		x.w.Write("#### ", nameCode(st.Stack), "\n\n")
		x.w.Fence(blast.Draw(st, x.r.pictureOptions()), "mermaid", "")
	}
	if g.More > 0 {
		x.w.Block()
		if reduced {
			x.w.Write("And ", strconv.Itoa(g.More), " more stack", plural(g.More),
				" with such changes, not pictured in full (at most ", strconv.Itoa(blast.MaxStacks), ", as many as the comment's record holds).\n")
		} else {
			x.w.Write("And ", strconv.Itoa(g.More), " more stack", plural(g.More),
				" with such changes, not pictured (at most ", strconv.Itoa(blast.MaxStacks), ").\n")
		}
		if reduced {
			x.w.Block()
			x.w.WriteString("Every stack with such changes, one node each:\n\n")
			x.w.Fence(blast.MermaidReduced(g.Reduced), "mermaid", "")
		}
	}
	if x.level == levelFull {
		x.pictureBytes, x.pictureChars = x.w.Len()-bytes, x.w.Chars()-chars
	}
}

// reduced writes the reduced picture where the full one is not shown:
// recordFull says the full picture did not fit the comment's record, else
// it was left out to fit the report's budget.
func (x *diffWriter) reduced(r *blast.Reduced, recordFull bool) {
	x.w.Block()
	x.w.WriteString(reducedLine)
	if recordFull {
		x.w.WriteString(" the comment's record")
	} else {
		x.w.WriteString(" this report")
	}
	x.w.WriteString(" (an arrow points from a stack to one whose changes it depends on; the legend names the shapes).\n")
	x.w.Block()
	x.w.Fence(blast.MermaidReduced(r), "mermaid", "")
}

// reducedSize is the size of the reduced picture's section, which a
// shortened level writes where level 0 drew the full picture (layout 4 on;
// 80, one line, before).
func (d *diffData) reducedSize() (bytes, chars int) {
	g := d.r.Picture
	if g == nil || g.Reduced == nil || !d.r.reducesPicture() {
		return 80, 80
	}
	w := NewWriter(Unlimited)
	x := diffWriter{diffData: d, w: w, level: levelCollapsed}
	x.reduced(g.Reduced, false)
	return w.Len() + 80, utf8.RuneCountInString(w.String()) + 80
}

// containsLine says whether a line of md starts with s.
func containsLine(md, s string) bool { return strings.Contains("\n"+md, "\n"+s) }
