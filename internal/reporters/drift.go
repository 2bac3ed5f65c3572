package reporters

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// DriftReport is one drift check as a reader sees it: what drifted, what
// could not be checked and why, or why the check did not run at all.
type DriftReport struct {
	// Drift is the detection report, redacted; empty for an error.
	Drift   model.Drift
	Verdict model.RunVerdict
	Label   string
	// Footer facts; empty ones are left out.
	SHA         string
	RunURL      string
	CdkdVersion string

	// CdkdSource says where cdkd came from (bundled, cdkd-path, ...).
	CdkdSource string

	// FullReportHint is trusted Markdown saying where the full report is,
	// shown when the report had to be shortened.
	FullReportHint string
	// Error is cdkd's reason when the check produced no report
	// (Verdict.Status is error); StderrTail is the end of its stderr.
	Error      string
	StderrTail []string
	// CauseNote is plain text saying how causes cdkd did not report were
	// decided, when that is worth knowing (the state could not be read).
	CauseNote string
	// Notes are plain sentences shown under the headline, each as an ℹ️
	// quote: e.g. that values are hidden because NoEcho positions are
	// unknown.
	Notes []string
	// HiddenStacks are the stacks (as named in Drift) whose drifted values
	// were all hidden, positions unknown; their paths still show.
	HiddenStacks []string
	// Resolution is what --accept or --revert did; nil when none ran.
	Resolution *ResolutionReport
	// Shard names the shard of a plan this report is (a shard run's).
	Shard *model.ShardRef
	// Missing, when set, says which stacks are not in Drift (a shard of a
	// matrix that did not report): the report shows what it has under that
	// warning, and the check did not complete.
	Missing string
}

// FinalStatus is where things stand after the run (see
// model.DriftResult.FinalStatus): the check run, the tracking issue and the
// exit code follow it; drift-status keeps the detection result.
func (r DriftReport) FinalStatus() model.DriftStatus {
	return r.Result().FinalStatus()
}

// The resolution's parts are the model's (see model.DriftResult).
type (
	ResolutionReport  = model.DriftResolution
	ResolutionFailure = model.ResolutionFailure
)

// Degradation levels of a drift report.
const (
	driftFull        = iota
	driftCollapsed   // every <details> closed
	driftShortValues // values cut to InlineMax characters
	driftPaths       // property paths without values
	driftResources   // resource names only
	driftStackCounts // one line per stack
	driftHeadline    // the headline alone
	driftLevels
)

// listMax is how many names a line lists at the shortest levels.
const listMax = 20

// DriftMarkdown renders a drift report within budget.
func DriftMarkdown(r DriftReport, b Budget) string {
	return driftMarkdown(r, b, false)
}

// DriftIssueMarkdown renders the body of the tracking issue: the report
// under a sentence saying what the issue is for now, and no footer, whose
// run link changes every run (the caller adds one outside what it compares).
func DriftIssueMarkdown(r DriftReport, b Budget) string {
	return driftMarkdown(r, b, true)
}

func driftMarkdown(r DriftReport, b Budget, issue bool) string {
	levels, render, note := driftRenderer(r, b, issue)
	return Fit(b, levels, render, note)
}

// driftRenderer prepares what every level needs once, and returns the
// number of levels and the function rendering one of them.
func driftRenderer(r DriftReport, b Budget, issue bool) (int, func(w *Writer, level int), string) {
	note := b.ShortenedNote(r.FullReportHint)
	d := &driftData{r: &r, issue: issue, budget: b, limited: b.Limited(), note: note}
	d.stacks = sortedDrift(r.Drift.Stacks)
	levels := driftLevels
	if r.Verdict.Status == model.DriftError {
		levels = errorLevels
	}
	return levels, func(w *Writer, level int) {
		x := driftWriter{driftData: d, w: w, level: level, rung: driftLadder[level]}
		x.report()
	}, note
}

// DriftTitle is the one-line outcome: the check run's title and the
// tracking issue's, e.g. "3 resources drifted".
func DriftTitle(r DriftReport) string {
	v := r.Verdict
	var t string
	switch v.Status {
	case model.DriftClean:
		t = "No drift"
		if NothingCompared(v) {
			t = "No drift detected, but nothing was compared"
		}
	case model.DriftDrifted:
		t = countOf(v.Drifted, "resource", "resources") + " drifted"
	case model.DriftIncomplete:
		t = "Could not check everything"
		switch {
		case len(v.Stacks) == 0:
			t = "Nothing checked: cdkd checked no stack"
		case v.Unchecked > 0:
			t += ": " + countOf(v.Unchecked, "resource", "resources") + " not checked"
		case NothingCompared(v):
			t = "Nothing checked: nothing could be compared"
		}
	default:
		t = "cdkd drift failed"
	}
	if res := r.Resolution; res != nil {
		switch {
		case res.Error != "" || len(res.Failed) > 0:
			t += " · " + res.Mode + " failed"
		case res.Refused() > 0:
			t += " · " + res.Mode + " refused"
		case res.After != nil && res.After.Status == model.DriftClean:
			t += " · " + pastTense(res.Mode)
		case res.After != nil && res.After.Status == model.DriftDrifted:
			t += " · " + countOf(res.After.Drifted, "resource", "resources") + " still drifted after " + res.Mode
		default:
			t += " · " + pastTense(res.Mode)
		}
	}
	return t
}

// NothingCompared reports a run in which no stack had anything compared:
// "no drift" then is no reassurance, and gets no ✓ anywhere.
func NothingCompared(v model.RunVerdict) bool {
	for _, s := range v.Stacks {
		if !s.Coverage.NothingCompared() {
			return false
		}
	}
	return true
}

func pastTense(mode string) string {
	switch mode {
	case "accept":
		return "accepted"
	case "revert":
		return "reverted"
	}
	return mode
}

// driftData is what every level renders from.
type driftData struct {
	r       *DriftReport
	stacks  []model.StackDrift
	issue   bool
	budget  Budget
	limited bool
	note    string
}

// verdict is the stack's verdict as the run classified it (Verdict.Stacks,
// which also travels in the report JSON): which unsupported resources are
// possibly deleted depends on the cdkd that ran, which reporters do not
// know. A stack the verdict does not list is classified here without that
// knowledge: its unsupported resources show as drift unknown.
func (d *driftData) verdict(s *model.StackDrift) model.StackVerdict {
	for _, v := range d.r.Verdict.Stacks {
		if v.Stack == s.Stack && v.Region == s.Region {
			return v
		}
	}
	return model.ClassifyStack(*s, d.r.Verdict.ExitCode, nil)
}

type driftWriter struct {
	*driftData
	w     *Writer
	level int
	rung  driftRung // the level's rung
}

func (x *driftWriter) report() {
	x.title()
	if x.issue {
		x.w.Block()
		x.w.Write(x.issueIntro(), "\n")
	}
	if x.r.Missing != "" {
		missing, _ := cutRunes(x.r.Missing, reasonMax)
		x.w.Block()
		x.w.Write("❌ **Incomplete:** ", Text(missing), "\n")
	}
	x.headline()
	if x.rung.shortenedNote {
		x.w.Block()
		x.w.Write(x.note, "\n")
	}
	if x.r.Verdict.Status == model.DriftError {
		x.failure()
		x.footer()
		return
	}
	if x.r.CauseNote != "" {
		x.w.Block()
		x.w.Write("> ℹ️ ", Text(shortNote(x.r.CauseNote)), "\n")
	}
	writeNotes(x.w, x.r.Notes, true)
	x.resolution()
	switch x.rung.body {
	case bodyHeadline:
	case bodyStackCounts:
		x.stackCounts()
	default:
		x.stackSections()
	}
	x.footer()
}

func (x *driftWriter) title() { writeTitle(x.w, "drift", x.r.Label) }

// listLimit is how many names a list shows: listMax once a shortened
// report is down to resource names, else -1 (all).
func (x *driftWriter) listLimit() int {
	if x.limited && x.rung.namesOnly {
		return listMax
	}
	return -1
}

func (x *driftWriter) issueIntro() string {
	switch x.r.FinalStatus() {
	case model.DriftDrifted:
		return "cdkd-action keeps this issue current while the drift lasts and closes it when a check finds none."
	case model.DriftIncomplete:
		if v := x.finalVerdict(); NothingCompared(v) && v.Unchecked == 0 {
			return "⚠️ **The latest check compared nothing.** That says nothing about drift and is not a clean result, so this issue stays open until a check completes without drift."
		}
		return "⚠️ **The latest check could not compare everything.** It found no drift among what it compared, but that is not a clean result, so this issue stays open until a check completes without drift."
	case model.DriftError:
		return "❌ **The latest check could not run.** It says nothing about drift either way; this issue stays open until a check completes without drift."
	case model.DriftClean:
		if NothingCompared(x.finalVerdict()) {
			return "⚠️ **The latest check compared nothing:** cdkd never drift-checks these resources by design. That says nothing about the drift recorded here, so this issue stays open until a check compares something and finds no drift."
		}
	}
	return "✅ **The latest check found no drift.** This issue is closed; it reopens if drift comes back."
}

// finalVerdict is the verdict FinalStatus follows.
func (x *driftWriter) finalVerdict() model.RunVerdict {
	if res := x.r.Resolution; res != nil && res.After != nil {
		return *res.After
	}
	return x.r.Verdict
}

// failure shows cdkd's last words for a check that did not run.
func (x *driftWriter) failure() { writeErrorTail(x.w, x.r.StderrTail, x.level) }

func statusPhrase(s model.DriftStatus) string {
	switch s {
	case model.DriftClean:
		return "✅ no drift"
	case model.DriftDrifted:
		return "🔴 drift"
	case model.DriftIncomplete:
		return "⚠️ could not check everything"
	}
	return "❌ error"
}

// quiet reports a stack with nothing to say beyond "no drift".
func quiet(v model.StackVerdict) bool {
	c := v.Coverage
	return v.Status == model.DriftClean && !c.NothingCompared() && c.Partial == 0 && c.Unsupported == 0 && c.Skipped == 0 && len(v.Notes) == 0
}

func (x *driftWriter) stackSections() {
	var calm []string
	for i := range x.stacks {
		if x.w.Over() {
			return
		}
		s := &x.stacks[i]
		v := x.verdict(s)
		if quiet(v) && len(s.Groups) == 0 {
			calm = append(calm, nameCode(s.Stack)+region(s.Region)+" · "+v.Coverage.String())
			continue
		}
		x.stack(s, v)
	}
	if len(calm) == 0 {
		return
	}
	x.w.Block()
	if len(calm) == 1 {
		x.w.Write("✅ **No drift:** ", calm[0], "\n")
		return
	}
	x.w.WriteString("✅ **No drift:**\n")
	writeList(x.w, len(calm), x.listLimit(), "", func(i int) { x.w.Write("- ", calm[i], "\n") })
}

func stackGlyph(v model.StackVerdict) string {
	switch {
	case v.Status == model.DriftDrifted:
		return "🔴"
	case v.Status == model.DriftIncomplete, v.Coverage.NothingCompared(), v.Coverage.Partial > 0:
		// cdkd's glyph follows "was everything actually compared": a
		// stack compared only partly gets its ⚠, not ✅.
		return "⚠️"
	case v.Status == model.DriftClean:
		return "✅"
	}
	return "❌"
}

func stackPhrase(v model.StackVerdict) string {
	switch {
	case v.Status == model.DriftDrifted:
		return countOf(v.Drifted, "resource", "resources") + " drifted"
	case v.Status == model.DriftIncomplete:
		return "could not check everything"
	case v.Coverage.NothingCompared():
		return "no drift detected, but NOTHING was compared"
	case v.Coverage.Partial > 0:
		return "no drift among what was compared, but not everything was compared"
	}
	return "no drift"
}

func (x *driftWriter) stack(s *model.StackDrift, v model.StackVerdict) {
	summary := stackGlyph(v) + " " + stackSummary(s.Stack, s.Region) + " · " + stackPhrase(v)
	open := x.rung.openDetails && len(s.Drifted)+len(s.NotCompared)+len(v.PossiblyDeleted) <= openMax
	x.w.Block()
	x.w.WriteString(detailsOpen(summary, open))
	x.w.Block()
	x.w.Write("**Coverage:** ", v.Coverage.String(), "\n")
	if len(v.Reasons) > 0 {
		x.w.Block()
		x.w.Write("**Could not check:** ", Text(strings.Join(v.Reasons, "; ")), ".\n")
	}
	x.drifted(s)
	x.notCompared(s, v)
	x.possiblyDeleted(v.PossiblyDeleted)
	x.typeCounts("❔ **Drift unknown:**", "unsupported", unsupportedOnly(s.NotSupported, v.PossiblyDeleted),
		"cdkd cannot read these types' current state yet, so their drift is unknown (they are not counted as checked; a resource deleted out of band is reported this way too).")
	x.typeCounts("⏭️ **Skipped:**", "custom", s.Skipped, "cdkd never drift-checks custom resources.")
	x.groups(s.Groups)
	x.w.Block()
	x.w.WriteString("</details>\n")
}

// unsupportedOnly leaves out the resources shown as possibly deleted.
func unsupportedOnly(rs, possiblyDeleted []model.Resource) []model.Resource {
	var out []model.Resource
	for _, r := range rs {
		if !slices.Contains(possiblyDeleted, r) {
			out = append(out, r)
		}
	}
	return out
}

func (x *driftWriter) drifted(s *model.StackDrift) {
	if len(s.Drifted) == 0 {
		return
	}
	x.w.Block()
	x.w.Write("**🔴 Drifted (", strconv.Itoa(len(s.Drifted)), ")** · cdkd's state → AWS now\n")
	cases := map[model.HiddenCase][]string{}
	if !writeList(x.w, len(s.Drifted), x.listLimit(), "", func(i int) {
		d := &s.Drifted[i]
		head := nameCode(d.LogicalID) + " · " + nameCode(d.Type)
		if d.ReferencesUnresolved {
			head += " · ⚠️ only partially compared"
		}
		if x.rung.namesOnly {
			x.w.Write("- ", head, " · ", countOf(len(d.Changes), "property", "properties"), "\n")
			return
		}
		x.w.Write("- ", head, "\n")
		for _, c := range d.Changes {
			hidden := c.Secret != model.SecretNone || c.State.Text() == model.Hidden || c.AWS.Text() == model.Hidden
			// An unknown position is explained by its own note, not by the
			// hidden-case notes below.
			if hidden && c.Secret != model.SecretUnknown {
				cases[hiddenCaseOf(c)] = append(cases[hiddenCaseOf(c)], d.LogicalID+"."+c.Path)
			}
			// A change hidden leaf by leaf shows its values as the
			// redaction stage left them (its secret leaves ***).
			x.change(c, hidden && !c.Leaves)
		}
	}) {
		return
	}
	if slices.Contains(x.r.HiddenStacks, s.Stack) {
		x.w.Block()
		x.w.WriteString("🔒 Every value in this stack is hidden (`***`): its NoEcho positions are unknown (see the note above), so only the paths that drifted are shown. " +
			"Without them nothing says whether a hidden position is a NoEcho custom-resource response (which cdkd reports on every run) or real drift: treat it as real drift.\n")
		return
	}
	x.hiddenNotes(cases)
}

func (x *driftWriter) change(c model.DriftChange, hidden bool) {
	if x.w.Over() {
		return
	}
	labels := secretLabel(c.Secret)
	if labels == "" && hidden {
		labels = " · 🔒 hidden"
	}
	sides := []side{
		{name: "State", v: c.State, absent: "(absent)", hidden: hidden},
		{name: "AWS", v: c.AWS, absent: "(absent)", hidden: hidden},
	}
	valueItem{indent: "  ", name: c.Path, labels: labels, sides: sides, what: "state and AWS values",
		diffWhat: "changes (- state, + AWS)"}.write(x.w, newValueLimits(x.budget, x.r.FullReportHint, x.rung.values))
}

func (x *driftWriter) stackCounts() {
	x.w.Block()
	for i := range x.stacks {
		if x.w.Over() {
			return
		}
		if x.limited && i == 100 {
			x.w.Write("- … and ", countOf(len(x.stacks)-100, "more stack", "more stacks"), "\n")
			return
		}
		s := &x.stacks[i]
		v := x.verdict(s)
		x.w.Write("- ", stackGlyph(v), " ", nameCode(s.Stack), region(s.Region), ": ", stackPhrase(v), " · ", v.Coverage.String(), "\n")
	}
}

func (x *driftWriter) footer() {
	if x.issue {
		return
	}
	footer{shaLabel: "commit", sha: x.r.SHA, runURL: x.r.RunURL, cdkd: x.r.CdkdVersion}.write(x.w)
}

// sortedDrift returns a sorted copy of the stacks and of every list in them,
// so the report depends only on content, never on cdkd's order, and the
// caller's report is left as it was.
func sortedDrift(in []model.StackDrift) []model.StackDrift {
	out := slices.Clone(in)
	byID := func(a, b model.Resource) int { return cmp.Compare(a.LogicalID, b.LogicalID) }
	for i := range out {
		s := &out[i]
		s.Drifted = slices.Clone(s.Drifted)
		for j := range s.Drifted {
			s.Drifted[j].Changes = slices.Clone(s.Drifted[j].Changes)
			slices.SortStableFunc(s.Drifted[j].Changes, func(a, b model.DriftChange) int { return cmp.Compare(a.Path, b.Path) })
		}
		slices.SortStableFunc(s.Drifted, func(a, b model.DriftedResource) int { return byID(a.Resource, b.Resource) })
		s.NotCompared = slices.Clone(s.NotCompared)
		slices.SortStableFunc(s.NotCompared, func(a, b model.NotCompared) int { return byID(a.Resource, b.Resource) })
		for _, l := range []*[]model.Resource{&s.Clean, &s.NotSupported, &s.Skipped} {
			*l = slices.Clone(*l)
			slices.SortStableFunc(*l, byID)
		}
	}
	slices.SortStableFunc(out, func(a, b model.StackDrift) int {
		return cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.Region, b.Region))
	})
	return out
}
