package reporters

import (
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The deploy result's parts are the model's; the aliases keep the
// reporters' names.
type (
	DeployOutcome     = model.DeployOutcome
	DestructiveChange = model.DestructiveChange
	DeployLock        = model.DeployLock
	DeployedStack     = model.DeployedStack
	DeployedResource  = model.DeployedResource
	StackOutput       = model.StackOutput
)

const (
	OutcomeDeployed  = model.OutcomeDeployed
	OutcomeRefused   = model.OutcomeRefused
	OutcomeFailed    = model.OutcomeFailed
	OutcomePartial   = model.OutcomePartial
	OutcomeLocked    = model.OutcomeLocked
	OutcomeCancelled = model.OutcomeCancelled
	OutcomeVerified  = model.OutcomeVerified
)

// DeployReport is one deploy as the pull request, the check run and the job
// summary show it: whether it ran, why not, and what it did. Every string
// comes redacted from the caller; untrusted ones are escaped here.
type DeployReport struct {
	Label   string
	Outcome DeployOutcome
	// Title is the headline's words after the outcome, e.g. "Diff changed
	// since review".
	Title string
	// Message says why, in one or two sentences.
	Message string
	// Reason is the failure-reason output, "" on success.
	Reason string

	// Footer facts; empty ones are left out.
	SHA         string // the deployed commit
	RunURL      string
	CdkdVersion string

	// CdkdSource says where cdkd came from (bundled, cdkd-path, ...).
	CdkdSource string

	Digest      string // the change set's digest
	PR          int
	ReviewedSHA string
	ReviewURL   string // the reviewed diff comment
	// Reviewed is true when the deployed change set is the reviewed one.
	Reviewed bool

	Warnings       []string
	Comparison     *model.Comparison
	ComparisonNote string
	Destructive    []DestructiveChange
	Lock           *DeployLock
	Stacks         []DeployedStack
	// StderrTail is the end of cdkd's stderr, for a failure.
	StderrTail []string
	// FullReportHint is trusted Markdown saying where the full report is.
	FullReportHint string
	// Group, set by verify, is the merge queue's group judged instead of
	// a deploy: the report is the merge queue check's (group.go).
	Group *model.GroupCheck
}

// warningsMax is how many warnings a deploy report shows; the rest are
// counted. The app adds one per unplaced note, so they grow with the input.
const warningsMax = 20

// Degradation levels of a deploy report.
const (
	deployFull       = iota
	deployCollapsed  // <details> closed, values cut short
	deployFailedOnly // resource lists keep failures only; differences without paths
	deployStackLines // one line per stack; lists capped
	deployHeadline   // headline, message, lock
	deployLevels
)

// DeployMarkdown renders a deploy report within budget.
func DeployMarkdown(r DeployReport, b Budget) string {
	note := b.ShortenedNote(r.FullReportHint)
	return Fit(b, deployLevels, func(w *Writer, level int) {
		x := deployWriter{r: &r, w: w, lv: deployLadder[level], limited: b.Limited(), note: note}
		x.report()
	}, note)
}

// DeployHeadline is the one-line outcome, for a check run title or a log
// line.
func DeployHeadline(r DeployReport) string {
	if r.Group != nil {
		return groupHeadline(r)
	}
	switch r.Outcome {
	case OutcomeDeployed:
		return "Deployed: " + totalDeployed(r.Stacks)
	case OutcomeRefused:
		if r.Title == "" {
			return "Deploy refused"
		}
		return "Deploy refused: " + r.Title
	case OutcomePartial:
		return "Partially deployed: " + totalDeployed(r.Stacks)
	case OutcomeLocked:
		return "Deploy not started: state locked"
	case OutcomeCancelled:
		// One wording per cause: "Deploy timed out" is not "cancelled".
		if r.Title != "" {
			return r.Title
		}
		return "Deploy cancelled"
	}
	if r.Title != "" {
		return "Deploy failed: " + r.Title
	}
	return "Deploy failed"
}

type deployWriter struct {
	r       *DeployReport
	w       *Writer
	lv      deployRung
	limited bool
	note    string
}

func (x *deployWriter) report() {
	if x.r.Group != nil {
		writeTitle(x.w, "merge queue", x.r.Label)
		x.groupHeadline()
	} else {
		writeTitle(x.w, "deploy", x.r.Label)
		x.headline()
	}
	if x.lv.shortenedNote {
		x.w.Block()
		x.w.Write(x.note, "\n")
	}
	x.lock()
	x.warnings()
	if x.lv.sections {
		x.group()
		x.comparison()
		x.destructive()
		x.stacks()
		x.stderr()
	}
	x.footer()
}

func (x *deployWriter) headline() {
	var icon, words string
	switch x.r.Outcome {
	case OutcomeDeployed:
		icon, words = "✅", "Deployed"
	case OutcomeRefused:
		icon, words = "⛔", "Deploy refused"
	case OutcomePartial:
		icon, words = "⚠️", "Partially deployed"
	case OutcomeLocked:
		icon, words = "🔒", "Deploy not started: state locked"
	case OutcomeCancelled:
		icon, words = "🛑", "Deploy cancelled"
		if x.r.Title != "" {
			words = x.r.Title // "Deploy timed out"
		}
	default:
		icon, words = "❌", "Deploy failed"
	}
	x.w.Block()
	x.w.Write(icon, " **", words)
	if x.r.Outcome == OutcomeRefused && x.r.Title != "" {
		x.w.Write(": ", Text(x.r.Title))
	}
	x.w.WriteString("**")
	if x.r.SHA != "" && (x.r.Outcome == OutcomeDeployed || x.r.Outcome == OutcomePartial) {
		x.w.Write(" at ", Code(ShortSHA(x.r.SHA)))
	}
	if len(x.r.Stacks) > 0 && (x.r.Outcome == OutcomeDeployed || x.r.Outcome == OutcomePartial || x.r.Outcome == OutcomeFailed || x.r.Outcome == OutcomeCancelled) {
		x.w.Write(" · ", totalDeployed(x.r.Stacks))
	}
	x.w.WriteString("\n")
	x.message("")
}

// message is the report's message, after lead (trusted Markdown).
func (x *deployWriter) message(lead string) {
	if x.r.Message == "" {
		return
	}
	msg, _ := cutRunes(x.r.Message, reasonMax)
	x.w.Block()
	x.w.Write(lead, Text(msg), "\n")
}

func (x *deployWriter) lock() {
	l := x.r.Lock
	if l == nil {
		return
	}
	x.w.Block()
	x.w.Write("🔒 Stack ", nameCode(l.Stack), region(l.Region), " is locked")
	if l.Owner != "" {
		x.w.Write(" by ", nameCode(l.Owner))
	}
	if l.Operation != "" {
		x.w.Write(" (operation ", nameCode(l.Operation), ")")
	}
	if l.ExpiresIn != "" {
		x.w.Write("; the lock expires in ", Text(l.ExpiresIn))
	}
	x.w.WriteString(". Wait for that job to finish and run this again. If no job holds the lock any more, release it with:\n\n")
	x.w.Fence(l.Unlock, "sh", "")
}

func (x *deployWriter) warnings() {
	if len(x.r.Warnings) == 0 {
		return
	}
	x.w.Block()
	writeList(x.w, len(x.r.Warnings), warningsMax, "> ", func(i int) {
		warn, _ := cutRunes(x.r.Warnings[i], reasonMax)
		x.w.Write("> ⚠️ ", Text(warn), "\n")
	})
}

func actionWord(a string) string { return "**" + Text(a) + "**" }

func (x *deployWriter) destructive() {
	if len(x.r.Destructive) == 0 {
		return
	}
	refused := 0
	for _, d := range x.r.Destructive {
		if d.AllowedBy == "" {
			refused++
		}
	}
	x.w.Block()
	x.w.WriteString("#### Destructive changes\n")
	limit := x.capped(len(x.r.Destructive), x.lv.destructiveCap)
	x.w.Block()
	if !writeList(x.w, len(x.r.Destructive), limit, "", func(i int) {
		d := x.r.Destructive[i]
		if d.AllowedBy == "" {
			x.w.WriteString("- ⛔ **refused**: ")
		} else {
			x.w.Write("- ✅ allowed by ", Text(d.AllowedBy), ": ")
		}
		writeDestructive(x.w, d.Action, d.LogicalID, d.Type, d.Stack)
		if len(d.ForcedBy) > 0 {
			x.w.Write(", forced by ", codeList(d.ForcedBy, -1))
		}
		x.w.WriteString("\n")
	}) {
		return
	}
	if refused > 0 {
		x.w.Block()
		x.w.WriteString("Allow them with the pull request's destructive label, `allow-destructive: true`, or their types in `allow-destroy-types`.\n")
	}
}

func (x *deployWriter) stacks() {
	if len(x.r.Stacks) == 0 {
		return
	}
	if x.lv.stackLines {
		x.w.Block()
		for _, s := range x.r.Stacks {
			if x.w.Over() {
				return
			}
			x.w.Write("- ", nameCode(s.Stack), region(s.Region), ": ", deployedPhrase(s), "\n")
			// Failures stay named, whatever else is left out.
			failed := 0
			for _, res := range s.Resources {
				if res.Result != "failed" {
					continue
				}
				if failed++; failed > 10 {
					x.w.WriteString("  - … and more failures\n")
					break
				}
				x.w.Write("  - ", resultLabel(res.Result), " ", nameCode(res.LogicalID), " · ", nameCode(res.Type), "\n")
			}
		}
		return
	}
	for i := range x.r.Stacks {
		if x.w.Over() {
			return
		}
		x.stack(&x.r.Stacks[i])
	}
}

func (x *deployWriter) stack(s *DeployedStack) {
	summary := stackSummary(s.Stack, s.Region) + " · " + Text(deployedPhrase(*s))
	if s.Duration != "" {
		summary += " · " + Text(s.Duration)
	}
	x.w.Block()
	x.w.WriteString(detailsOpen(summary, x.lv.openDetails && len(s.Resources) <= openMax))
	if s.Note != "" {
		x.w.Block()
		x.w.Write(Text(s.Note), "\n")
	}
	shown := 0
	for _, res := range s.Resources {
		if x.w.Over() {
			return
		}
		if x.lv.failuresOnly && res.Result != "failed" {
			continue
		}
		if shown == 0 {
			x.w.Block()
		}
		shown++
		x.w.Write("- ", resultLabel(res.Result), " ", nameCode(res.LogicalID))
		if res.Type != "" {
			x.w.Write(" · ", nameCode(res.Type))
		}
		if res.Duration != "" {
			x.w.Write(" · ", Text(res.Duration))
		}
		if res.Error != "" {
			msg, more := cutRunes(res.Error, x.lv.errorWidth)
			x.w.Write(": ", Text(msg))
			if more > 0 {
				x.w.Write(" … ", moreChars(more))
			}
		}
		x.w.WriteString("\n")
	}
	if len(s.Outputs) > 0 {
		x.w.Block()
		x.w.WriteString("**Outputs**\n")
		x.w.Block()
		width := x.lv.outputWidth
		for _, o := range s.Outputs {
			if x.w.Over() {
				return
			}
			x.w.Write("- ", nameCode(o.Name), ": ")
			if o.Secret {
				x.w.Write(Code(model.Hidden), " · 🔒 secret\n")
				continue
			}
			v, more := cutRunes(o.Value, width)
			x.w.WriteString(Code(v))
			if more > 0 {
				x.w.Write("… ", moreChars(more))
			}
			x.w.WriteString("\n")
		}
	}
	x.w.Block()
	x.w.WriteString("</details>\n")
}

func resultLabel(r string) string {
	switch r {
	case "created":
		return "➕ **created**"
	case "updated":
		return "🔄 **updated**"
	case "deleted":
		return "➖ **deleted**"
	case "failed":
		return "❌ **failed**"
	case "skipped":
		return "⏭️ **skipped**"
	case "retained":
		return "📌 **retained**"
	case "interrupted":
		return "⏸️ **interrupted**"
	}
	return "**" + Text(r) + "**"
}

func (x *deployWriter) stderr() {
	if !x.lv.stderr {
		return
	}
	lines := x.r.StderrTail
	if n := x.lv.stderrLines; n > 0 {
		lines = lines[max(0, len(lines)-n):]
	}
	writeStderr(x.w, lines, x.lv.stderrWidth)
}

func (x *deployWriter) footer() {
	if x.r.Group != nil {
		footer{shaLabel: "group head", sha: x.r.SHA, runURL: x.r.RunURL, cdkd: x.r.CdkdVersion, source: x.r.CdkdSource, digest: x.r.Digest}.write(x.w)
		return
	}
	var pr string
	if x.r.PR > 0 {
		pr = "PR " + Code("#"+strconv.Itoa(x.r.PR))
		if x.r.ReviewedSHA != "" {
			pr += ", reviewed at " + Code(ShortSHA(x.r.ReviewedSHA))
		}
		if u := safeURL(x.r.ReviewURL); u != "" {
			pr += " ([diff](" + u + "))"
		}
	}
	footer{shaLabel: "commit", sha: x.r.SHA, extra: pr, runURL: x.r.RunURL, cdkd: x.r.CdkdVersion, source: x.r.CdkdSource, digest: x.r.Digest}.write(x.w)
}

// totalDeployed totals the stacks: "3 created, 1 updated, 1 failed".
func totalDeployed(stacks []DeployedStack) string {
	var t DeployedStack
	for _, s := range stacks {
		t.Created += s.Created
		t.Updated += s.Updated
		t.Deleted += s.Deleted
		t.Failed += s.Failed
		t.ChangesUnknown = t.ChangesUnknown || s.ChangesUnknown
	}
	return deployedPhrase(t)
}

func deployedPhrase(s DeployedStack) string {
	parts := appendCount(nil, s.Created, "created", false)
	parts = appendCount(parts, s.Updated, "updated", false)
	parts = appendCount(parts, s.Deleted, "deleted", false)
	parts = appendCount(parts, s.Failed, "failed", false)
	switch {
	case s.ChangesUnknown && len(parts) == 0:
		return "changes not known"
	case s.ChangesUnknown:
		return strings.Join(parts, ", ") + " known, more may have changed"
	case len(parts) == 0:
		return "no resource changed"
	}
	return strings.Join(parts, ", ")
}
