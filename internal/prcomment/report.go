package prcomment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// FullReportHint says where the unabridged report of the run at runURL
// lives, when a channel's budget forced a shorter one.
func FullReportHint(runURL string) string {
	if runURL != "" {
		return fmt.Sprintf("the job summary of [this run](%s) and the report JSON file", runURL)
	}
	return "the job summary and the report JSON file"
}

// DiffReport is the report a diff comment shows, built from its header and
// its change set alone: the diff command renders the comment from it, and
// the deploy gate renders it again to verify what reviewers read.
func DiffReport(h marker.Header, d model.Diff) reporters.DiffReport {
	return reporters.DiffReport{Diff: d, Label: h.Label, HeadSHA: h.SHA, RunURL: h.Run, CdkdVersion: h.Cdkd, Digest: h.Digest,
		FullReportHint: FullReportHint(h.Run), Notes: h.Notes, Picture: Picture(h)}
}

// Picture is the picture of what the changes touch that header h records;
// nil when it records none, or one that cannot be read (the report then
// draws none, and a comment that showed one differs from it).
func Picture(h marker.Header) *blast.Graph {
	if len(h.Picture) == 0 {
		return nil
	}
	var g blast.Graph
	if json.Unmarshal(h.Picture, &g) != nil || len(g.Stacks) == 0 && g.Reduced == nil {
		return nil
	}
	return &g
}

// pictureRecordMax is the most characters the picture's record may take
// in the header: it comes off the report's budget (ReportBudget), so it is
// bounded, whatever the names.
const pictureRecordMax = 12000

// FitPicture is g with as many of its stacks as fit the header's record
// (pictureRecordMax), the others counted in More; the reduced picture
// (one node per stack) goes first, so that a picture whose first stack
// does not fit still shows every stack at one node each. It is nil when
// not even one node of the reduced picture fits.
func FitPicture(g *blast.Graph) *blast.Graph {
	if g == nil {
		return nil
	}
	fits := func(g *blast.Graph) bool {
		b, err := json.Marshal(g)
		return err == nil && len(b) <= pictureRecordMax
	}
	out := blast.Graph{More: g.More + len(g.Stacks)}
	if g.Reduced != nil {
		r := *g.Reduced
		out.Reduced = &r
		for len(r.Stacks) > 0 && !fits(&out) {
			r = dropLastStack(r)
			out.Reduced = &r
		}
		if len(r.Stacks) == 0 {
			out.Reduced = nil
		}
	}
	for _, st := range g.Stacks {
		next := out
		next.Stacks = append(slices.Clip(out.Stacks), st)
		next.More--
		if !fits(&next) {
			break
		}
		out = next
	}
	if len(out.Stacks) == 0 && out.Reduced == nil {
		return nil
	}
	return &out
}

// dropLastStack is r without its last stack, counted in More.
func dropLastStack(r blast.Reduced) blast.Reduced {
	last := len(r.Stacks) - 1
	out := blast.Reduced{Stacks: r.Stacks[:last:last], More: r.More + 1}
	for _, e := range r.Edges {
		if e[0] != last && e[1] != last {
			out.Edges = append(out.Edges, e)
		}
	}
	return out
}

// WithPicture records picture g in header h (nil: none).
func WithPicture(h marker.Header, g *blast.Graph) marker.Header {
	h.Picture = nil
	if g != nil {
		// A graph of strings and numbers cannot fail to encode.
		h.Picture, _ = json.Marshal(g)
	}
	return h
}

// ReportHash is a short hash of a comment's visible report, which the
// diff's check run records: the report cannot be edited unnoticed even when
// the change set was too large to store whole and cannot be re-rendered.
func ReportHash(report string) string {
	sum := sha256.Sum256([]byte(report))
	return hex.EncodeToString(sum[:12])
}

// ErrReportEdited means the visible report is not the one the change set
// renders to: someone edited what reviewers read.
var ErrReportEdited = errors.New("the review comment was edited")

// VerifyReport renders the visible report again from the header and the
// recorded change set (cs whole), in the layout the header names, within
// the budget the diff rendered it in, and compares it with c.Report, as
// they are or both redacted with r (nil: not at all). Any difference is
// ErrReportEdited, naming the first line that differs; a layout this
// release does not render is ErrUnknownRenderer, which is no edit.
func (c Comment) VerifyReport(cs *model.ChangeSet, budget reporters.Budget, r Redactor) error {
	if cs == nil || cs.Diff == nil {
		return errors.New("the change set is not stored whole, so the report cannot be rendered again")
	}
	return c.verify(*cs.Diff, true, budget, r)
}

// VerifyView is VerifyReport for a review that does not record its change
// set whole: d is a change set its digest covers (the one being
// deployed), and only what the digest covers is compared.
func (c Comment) VerifyView(d model.Diff, budget reporters.Budget, r Redactor) error {
	return c.verify(d, false, budget, r)
}

func (c Comment) verify(d model.Diff, whole bool, budget reporters.Budget, r Redactor) error {
	rd, err := RendererOf(c.Header.Render)
	if err != nil {
		return err
	}
	want, got := rd.Report(c.Header, c.ChangeSet, d, whole, budget), c.Report
	if want == got {
		return nil
	}
	if r != nil {
		// Both sides hidden alike: a value the deploy knows as a secret
		// and the diff did not is no edit.
		want, got = rd.Redact(r, want), rd.Redact(r, got)
		if want == got {
			return nil
		}
	}
	return fmt.Errorf("%w: its visible report differs from the reviewed change set from line %d on", ErrReportEdited, firstDifferentLine(want, got))
}

func firstDifferentLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}
