package reporters

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// DiffReport is one `cdkd diff` run as a reviewer sees it: the changes, or
// why the run failed, and where it came from.
type DiffReport struct {
	Diff  model.Diff
	Label string // "" or e.g. "prod": the title reads "cdkd diff (prod)"
	// Footer facts; empty ones are left out.
	HeadSHA     string
	RunURL      string // the "view run" link; only http(s) URLs are linked
	CdkdVersion string

	// CdkdSource says where cdkd came from (bundled, cdkd-path, ...).
	CdkdSource string

	Digest string // shown shortened; the caller puts the full one in the hidden header
	// FingerprintKeyID identifies the key of the hidden-value tokens (report JSON
	// only).
	FingerprintKeyID string
	// FullReportHint is trusted Markdown saying where the full report is, shown
	// when the report had to be shortened, e.g. "the job summary of
	// [run 123](url) and the report JSON artifact".
	FullReportHint string
	// Error, when set, makes this a failure report: the reason, and the tail
	// of cdkd's stderr in a collapsed section, instead of changes.
	Error      string
	StderrTail []string
	// Shard names the shard of a plan this report is (a shard run's).
	Shard *model.ShardRef
	// Missing, when set, says which part of the change set is not in Diff
	// (a shard of a matrix that did not report): the report shows what it
	// has under that warning, and is a failure.
	Missing string
	// Notes are plain sentences shown under the headline, each as an ℹ️
	// line: what the reader should know about how far the report can be
	// trusted (e.g. that NoEcho positions are unknown). A failure report
	// leaves them out.
	Notes []string
	// Picture is the picture of what the changes touch (nil: none), shown
	// at full fidelity only. The comment records it in its header, so the
	// deploy draws it again from the review alone.
	Picture *blast.Graph
	// PictureIn, when Picture is nil, is trusted Markdown naming where the
	// picture is drawn ("the PR comment"), for a channel that does not
	// show it; PictureShown says what that place shows of it
	// (PictureDrawn, PictureReduced, PictureLeftOut, PictureNotWritten).
	// The pointer is written only with both, so it says where the picture
	// is only where it is.
	PictureIn, PictureShown string
	// Layout is the layout to render in (layout.go); 0 is LatestLayout.
	// Only the deploy, rendering a kept review again, names an older one.
	Layout int
}

// Degradation levels of a diff report, tried in order until one fits.
const (
	levelFull        = iota
	levelCollapsed   // every <details> closed
	levelShortValues // values cut to InlineMax characters
	levelPaths       // property paths without values
	levelResources   // one row per resource, no properties
	levelStackCounts // one line of counts per stack
	levelTotals      // the headline alone
	diffLevels

	// A failure report can only give up the stderr tail.
	levelShortTail = 1
	levelNoTail    = 2
	errorLevels    = 3
)

const (
	// openMax is the most changes a stack section may hold and still be open.
	openMax = 15
	// calloutMax is how many destructive changes the callout names when the
	// budget is limited (levels up to levelPaths).
	calloutMax = 50
	labelMax   = 100
	reasonMax  = 2000
)

// DiffMarkdown renders a diff report within budget. It never modifies r:
// lists are sorted on a copy, so the output depends only on the report's
// content, never on cdkd's iteration order.
func DiffMarkdown(r DiffReport, b Budget) string {
	levels, render, note := diffRenderer(r, b)
	return Fit(b, levels, render, note)
}

// diffRenderer prepares what every level needs once, and returns the
// number of levels and the function rendering one of them.
func diffRenderer(r DiffReport, b Budget) (int, func(w *Writer, level int), string) {
	d := &diffData{r: &r, budget: b, limited: b.Limited(), note: b.ShortenedNote(r.FullReportHint)}
	if r.Error != "" {
		return errorLevels, func(w *Writer, level int) {
			x := diffWriter{diffData: d, w: w, level: level}
			x.failure()
		}, d.note
	}
	d.stacks = sortedCopy(r.Diff.Stacks)
	sorted := model.Diff{Stacks: d.stacks}
	d.totals = sorted.Totals()
	d.secrets = sorted.SecretCounts()
	d.securityRows = securityRows(d.stacks)
	for _, c := range d.securityRows {
		if r.broadening(c) {
			d.broadening++
		}
	}
	d.destructive = make([]located, 0, d.totals.Replace+d.totals.Delete+d.totals.Other)
	sorted.Walk(func(path string, s model.StackDiff) {
		for i := range s.Changes {
			if s.Changes[i].Destructive() {
				d.destructive = append(d.destructive, located{path: path, change: &s.Changes[i]})
			}
		}
	})
	return diffLevels, func(w *Writer, level int) {
		if level == levelCollapsed && d.collapseCannotFit(b) {
			w.Abandon()
			return
		}
		if !d.limited {
			// A whole report is megabytes: sized once, not grown step by step.
			w.Grow(unlimitedSize(sorted))
		}
		x := diffWriter{diffData: d, w: w, level: level, rung: diffLadder[level]}
		x.diff()
		if level == levelFull {
			d.full = w
		}
	}, d.note
}

// diffData is what every level renders from, computed once.
type diffData struct {
	r           *DiffReport
	budget      Budget
	stacks      []model.StackDiff
	totals      model.Counts
	secrets     model.SecretCounts
	destructive []located
	// securityRows are every stack's security rows; broadening counts
	// those that may widen access.
	securityRows []*security.Change
	broadening   int
	limited      bool
	note         string
	full         *Writer // level 0, once rendered
	widest       int     // the longest block or diff level 0 wrote, in bytes
	// pictureBytes and pictureChars are the size of the picture level 0
	// wrote, which level 1 leaves out.
	pictureBytes, pictureChars int
}

// collapseCannotFit tells, from what level 0 wrote before giving up, that
// level 1 cannot fit either, sparing a render: level 1 is level 0 with the
// note added and every "<details open>" five bytes shorter, unless level 1
// cuts a value that level 0 wrote longer.
func (d *diffData) collapseCannotFit(b Budget) bool {
	if d.full == nil || !d.full.Over() {
		return false
	}
	if limit := b.valueMax(true); limit > 0 && limit != b.valueMax(false) && d.widest > limit {
		return false
	}
	saved := 5 * strings.Count(d.full.String(), "<details open>")
	// Level 1 writes one line where level 0 drew the picture (layout 2 on),
	// or the reduced picture (layout 4 on).
	lineBytes, lineChars := 0, 0
	if d.r.drawsPicture() {
		lineBytes, lineChars = d.reducedSize()
	}
	return (b.MaxBytes > 0 && d.full.Len()+len(d.note)-saved-d.pictureBytes+lineBytes > b.MaxBytes) ||
		(b.MaxChars > 0 && d.full.Chars()+utf8.RuneCountInString(d.note)-saved-d.pictureChars+lineChars > b.MaxChars)
}

type located struct {
	path   string
	change *model.ResourceChange
}

// diffWriter renders one level.
type diffWriter struct {
	*diffData
	w     *Writer
	level int
	rung  diffRung // the level's rung (a failure report has none)
}

func (x *diffWriter) diff() {
	x.title()
	if x.r.Missing != "" {
		missing, _ := cutRunes(x.r.Missing, reasonMax)
		x.w.Block()
		x.w.Write("❌ **Incomplete:** ", Text(missing), "\n")
	}
	x.w.Block()
	switch {
	case len(x.stacks) == 0:
		// An empty report is what a wrong stack name or app gives too: no
		// clean bill of health.
		x.w.WriteString("⚠️ **cdkd diffed no stack:** check the `stacks` and `all` inputs and the `app`.\n")
	case x.totals.Any() || x.secrets.Changed > 0:
		x.w.WriteString(planLine(x.totals, x.secrets))
	default:
		x.w.WriteString("✅ **No changes.**\n")
	}
	writeNotes(x.w, x.r.Notes, x.r.codeSpansInNotes())
	if x.rung.shortenedNote {
		x.w.Block()
		x.w.Write(x.note, "\n")
	}
	x.callout()
	x.secretCallout()
	x.securitySection()
	x.picture()
	switch x.rung.body {
	case bodyHeadline:
	case bodyStackCounts:
		x.stackCounts()
	default:
		x.stackSections(x.stacks, "")
	}
	x.footer()
}

func (x *diffWriter) title() { writeTitle(x.w, "diff", x.r.Label) }

// callout names what destroys resources, before anything else.
func (x *diffWriter) callout() {
	c := x.totals
	if c.Replace+c.Delete+c.Other == 0 {
		return
	}
	parts := appendCount(nil, c.Replace, "to replace", false)
	parts = appendCount(parts, c.Delete, "to delete", false)
	// An unknown change type may destroy: the deploy gate treats it so.
	parts = appendCount(parts, c.Other, "of an unknown change type", false)
	x.w.Block()
	x.w.Write("> ⚠️ **Destructive changes:** ", strings.Join(parts, ", "), "\n")
	limit := len(x.destructive)
	if x.limited {
		limit = x.rung.calloutCap
	}
	writeList(x.w, len(x.destructive), limit, "> ", func(i int) {
		ch := x.destructive[i].change
		x.w.WriteString("> - ")
		writeDestructive(x.w, ch.Action(), ch.LogicalID, ch.ResourceType, x.destructive[i].path)
		if ch.Action() == model.ActionReplace {
			x.w.Write(", forced by ", codeList(ch.ReplacingPaths(), -1))
		}
		x.w.WriteString("\n")
	})
}

// stackSections renders one section per stack with something to show, and
// names the others on one line.
func (x *diffWriter) stackSections(stacks []model.StackDiff, prefix string) {
	var quiet []string
	for i := range stacks {
		if x.w.Over() {
			return
		}
		s := &stacks[i]
		path := joinPath(prefix, s.Stack)
		if !s.Counts().Any() && !hasNotes(s) {
			quiet = append(quiet, nameCode(path)+region(s.Region))
			continue
		}
		x.stack(s, path)
	}
	if len(quiet) > 0 {
		x.w.Block()
		x.w.Write("**No changes:** ", strings.Join(quiet, ", "), "\n")
	}
}

func (x *diffWriter) stack(s *model.StackDiff, path string) {
	c := s.Counts()
	summary := stackSummary(path, s.Region) + " · " + countsPhrase(c, false)
	if len(s.NoEchoReaders) > 0 {
		summary += " · ℹ️ NoEcho note"
	}
	summary += stackSecretSummary(s)
	x.w.Block()
	x.w.WriteString(detailsOpen(summary, x.rung.openDetails && c.Resources()+c.Outputs() <= openMax))
	if len(s.Changes) == 0 && len(s.OutputChanges) == 0 {
		x.w.Block()
		switch {
		case len(s.Children) > 0:
			x.w.WriteString("No changes to this stack's own resources.\n")
		case stackSecretSummary(s) != "":
			x.w.WriteString("No resource or output changes.\n")
		default:
			x.w.WriteString("No changes.\n")
		}
	}
	x.resources(s.Changes)
	x.outputs(s.OutputChanges)
	x.noEchoNote(s.NoEchoReaders)
	x.secretValues(path, s.SecretValues)
	x.stackSections(s.Children, path)
	x.w.Block()
	x.w.WriteString("</details>\n")
}

func (x *diffWriter) stackCounts() {
	x.w.Block()
	quiet := 0
	model.Diff{Stacks: x.stacks}.Walk(func(path string, s model.StackDiff) {
		if x.w.Over() {
			return
		}
		c := s.OwnCounts()
		if !c.Any() {
			quiet++
			return
		}
		x.w.Write("- ", nameCode(path), region(s.Region), ": ", countsPhrase(c, false), "\n")
	})
	switch quiet {
	case 0:
	case 1:
		x.w.WriteString("- 1 other stack: no changes\n")
	default:
		x.w.Write("- ", strconv.Itoa(quiet), " other stacks: no changes\n")
	}
}

// failure renders a run that produced no diff.
func (x *diffWriter) failure() {
	x.title()
	reason, _ := cutRunes(x.r.Error, reasonMax)
	x.w.Block()
	x.w.Write("❌ **cdkd diff failed:** ", Text(reason), "\n")
	if x.level > levelFull {
		x.w.Block()
		x.w.Write(x.note, "\n")
	}
	writeErrorTail(x.w, x.r.StderrTail, x.level)
	x.footer()
}

func (x *diffWriter) footer() {
	footer{shaLabel: "head", sha: x.r.HeadSHA, runURL: x.r.RunURL, cdkd: x.r.CdkdVersion, source: x.r.CdkdSource, digest: x.r.Digest}.write(x.w)
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "/" + name
}

func hasNotes(s *model.StackDiff) bool {
	if len(s.NoEchoReaders) > 0 || len(s.SecretValues) > 0 {
		return true
	}
	for i := range s.Children {
		if hasNotes(&s.Children[i]) {
			return true
		}
	}
	return false
}
