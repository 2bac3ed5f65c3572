package reporters

import (
	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// The diff report's layouts. A review comment records the layout it was
// written in, and the deploy renders it again in that layout to compare it
// with what reviewers read, byte for byte (docs/versions.md). So anything
// the diff report shows that changes is a new layout, and the renderer
// branches on DiffReport.Layout exactly where layouts differ; everything
// else is shared by every layout.
const (
	// Layout1 is the report of every release before the picture of what
	// the changes touch.
	Layout1 = 1
	// Layout2 adds that picture, drawn from the header's record, and
	// budgets one line for it when a shorter level leaves it out.
	Layout2 = 2
	// Layout3 marks an unresolved security row as broadening and shows a
	// note's code spans as code.
	Layout3 = 3
	// Layout4 keeps every flowchart within Mermaid's limits, draws a
	// reduced picture (one node per stack) where the full one does not
	// fit, and gives replaced and deleted nodes fixed colours: see
	// docs/versions.md's list of layouts.
	Layout4 = 4
	// LatestLayout is the layout this release writes.
	LatestLayout = Layout4
)

// layout is the layout r is rendered in: the latest unless the caller
// names an older one (a deploy rendering a kept review again).
func (r *DiffReport) layout() int {
	if r.Layout == 0 {
		return LatestLayout
	}
	return r.Layout
}

// drawsPicture says the layout has the picture section (layout 2 on); an
// older layout draws none, whatever its header holds.
func (r *DiffReport) drawsPicture() bool { return r.layout() >= Layout2 }

// broadening says whether the report shows row c as a broadening: from
// layout 3 on, every row that counts as one (an unresolved row too, whose
// value is known only at the deploy); an older layout showed an unresolved
// row as no broadening, and is rendered again as it was written.
func (r *DiffReport) broadening(c *security.Change) bool {
	if r.layout() >= Layout3 {
		return c.Broadening()
	}
	return c.Status == security.Broadening || c.Status == security.Unknown
}

// explainsUnresolved says the layout says, in an unresolved row's status,
// why it could not be evaluated and that it counts as broadening (layout
// 3 on).
func (r *DiffReport) explainsUnresolved() bool { return r.layout() >= Layout3 }

// LeafSecrecy says the layout's diff decides each leaf of a value at a
// secret position from the template, showing the public ones (layout 4
// on; 0 is the latest); an older one hid the value whole, and a deploy
// checking such a review redacts as it did, so its digest stays.
func LeafSecrecy(layout int) bool { return layout == 0 || layout >= Layout4 }

// hidesWhole says the report shows the value of a change at a secret
// position as *** whole. From layout 4 on, a value the redaction stage hid
// leaf by leaf (PropertyChange.Leaves) is shown as the stage left it, its
// public leaves visible; an older layout hid it whole.
func (r *DiffReport) hidesWhole(p model.PropertyChange) bool {
	return p.Secret != model.SecretNone && !(p.Leaves && r.layout() >= Layout4)
}

// codeSpansInNotes says the layout renders a note's `code spans` as code
// (layout 3 on); an older one wrote their backticks as literal characters.
func (r *DiffReport) codeSpansInNotes() bool { return r.layout() >= Layout3 }

// reducesPicture says the layout draws the reduced picture (one node per
// stack) where the full one does not fit the record or the budget, and
// says so (layout 4 on); an older layout wrote only that the picture was
// left out, or nothing.
func (r *DiffReport) reducesPicture() bool { return r.layout() >= Layout4 }

// pictureOptions are how the layout draws a stack's flowchart: from layout
// 4 on, replaced and deleted nodes in fixed colours and labels that
// survive Mermaid's stripping of a style-like line's last ';'; before, as
// those layouts drew it.
func (r *DiffReport) pictureOptions() blast.Options {
	if r.layout() >= Layout4 {
		return blast.Latest
	}
	return blast.Options{}
}
