package prcomment

import (
	"errors"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// A review is a contract across releases: the deploy gate renders the
// visible report of a diff comment again from what the review records and
// compares it, byte for byte, with what reviewers read. One renderer
// (internal/reporters) draws every layout this release accepts, branching
// on the layout where layouts differ (reporters/layout.go); the kept
// reviews of cmd/cdkd-action/testdata/cross-release prove that each still
// renders as the release that wrote it did. docs/versions.md says how a
// layout change is made.

// RendererVersion is the layout this release writes diff comments in: the
// header's Render and the diff check run's record name it.
const RendererVersion = reporters.LatestLayout

// Renderer is one layout of the visible report and the redaction its sink
// applied.
type Renderer struct {
	Version int
	// Redact redacts text as this version's sink did.
	Redact func(r Redactor, text string) string
}

// Report lays out, in this layout, the visible report of header h, whose
// comment carries changeSetLine (may be ""), for change set d within
// budget (the comment's, before the header and the line are taken off).
// whole says d is the recorded change set itself (the comment's line or
// the state bucket's); otherwise d is a change set the reviewed digest
// covers, and only what the digest covers is shown.
func (v Renderer) Report(h marker.Header, changeSetLine string, d model.Diff, whole bool, budget reporters.Budget) string {
	if !whole {
		d = DigestView(d)
	}
	r := DiffReport(h, d)
	r.Layout = v.Version
	return reporters.DiffMarkdown(r, ReportBudget(budget, h, changeSetLine))
}

// renderers are the layouts this release renders, oldest first; the last
// is RendererVersion.
var renderers = []Renderer{
	{Version: reporters.Layout1, Redact: redactExceptBlobs},
	{Version: reporters.Layout2, Redact: redactExceptBlobs},
	{Version: reporters.Layout3, Redact: redactExceptBlobs},
	{Version: reporters.Layout4, Redact: redactText},
}

// redactText is layout 4's: every value, in every encoding, and every
// encoded blob (base64, base32, gzip, zlib, UTF-16LE, nested) whose
// decoded text holds one.
func redactText(r Redactor, text string) string { return r.Redact(text) }

// redactExceptBlobs is layouts 1 to 3's: their sinks did not look inside
// encoded blobs, so a review they wrote renders as it was posted.
func redactExceptBlobs(r Redactor, text string) string { return r.RedactExceptBlobs(text) }

// ErrUnknownRenderer means a review's report was laid out by a version
// this release does not render: not an edit, the diff must be run again.
var ErrUnknownRenderer = errors.New("unknown report layout")

// CurrentRenderer is the layout this release writes.
func CurrentRenderer() Renderer { return renderers[len(renderers)-1] }

// RendererOf is the layout a review names (0: a header written before the
// version was recorded, layout 1).
func RendererOf(version int) (Renderer, error) {
	if version == 0 {
		version = 1
	}
	for _, r := range renderers {
		if r.Version == version {
			return r, nil
		}
	}
	return Renderer{}, fmt.Errorf("%w v%d: this release of cdkd-action renders %s", ErrUnknownRenderer, version, SupportedRenderers())
}

// SupportedRenderers names the layouts this release renders, for messages.
func SupportedRenderers() string {
	first, last := renderers[0].Version, renderers[len(renderers)-1].Version
	if first == last {
		return fmt.Sprintf("layout v%d only", first)
	}
	return fmt.Sprintf("layouts v%d to v%d", first, last)
}

// DigestView is d as far as its digest covers it: what a deploy that
// recomputes a change set with the same digest is sure to have again,
// whatever either run could read. The notes the digest leaves out (the
// secret values' fingerprint statuses, the unchanged NoEcho readers) are
// dropped, and values take their canonical JSON spelling, which is what
// the digest hashes. A report of a change set that is not recorded whole
// shows this view, so that it can be rendered again from the change set
// being deployed.
func DigestView(d model.Diff) model.Diff {
	c := d.Canonical()
	keepSecurity(c.Stacks, d.Stacks)
	return c
}

// keepSecurity copies the security rows (which the digest covers and
// Canonical leaves out) from the stacks of in to those of out, which hold
// the same stacks in the same order.
func keepSecurity(out, in []model.StackDiff) {
	for i := range min(len(out), len(in)) {
		out[i].Security = in[i].Security
		keepSecurity(out[i].Children, in[i].Children)
	}
}
