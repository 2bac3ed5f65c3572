package reporters

import (
	"strings"
	"unicode/utf8"
)

// Budget is the size a channel accepts. Reports are rendered within it by
// construction: GitHub's "body is too long" error arrives too late to do
// anything useful. Zero fields mean no limit.
type Budget struct {
	MaxBytes int // len(): what GitHub limits check-run text and step summaries by
	MaxChars int // code points: what GitHub limits comment bodies by
	// Channel names the place in the "shortened to fit" note: "the PR comment".
	Channel string
	// Hint, when set, replaces the report's FullReportHint in that note: the
	// job summary cannot send readers to the job summary.
	Hint string
	// ValueMax is the most characters one value's block, or its diff, shows
	// in a full-fidelity report: 0 is BlockMax when the budget is limited and
	// no cap when it is not; WholeValues shows values whole on a limited
	// budget too, which then shortens them only by degrading the report.
	ValueMax int
}

// WholeValues is the ValueMax of a channel that shows values whole: the
// channel the other channels send readers to for the full report.
const WholeValues = -1

// The channels' budgets. Each leaves room for what is added after rendering:
// the hidden header the caller puts in front of a comment, and the redactor,
// which may lengthen a secret shorter than the "***" it becomes.
var (
	// CommentBudget: GitHub accepts 65,536 characters in a comment body.
	CommentBudget = Budget{MaxChars: 65536 - 2048, Channel: "the PR comment"}
	// CheckRunBudget: a check run's output summary and text take 65,535 bytes each.
	CheckRunBudget = Budget{MaxBytes: 65535 - 1024, Channel: "the check run"}
	// SummaryBudget: a step's job summary takes 1 MiB.
	// It is where the full report is: values show whole.
	SummaryBudget = Budget{MaxBytes: 1<<20 - 32<<10, Channel: "the job summary", ValueMax: WholeValues}
	// Unlimited is for local runs printing to a terminal.
	Unlimited = Budget{}
)

// Limited reports whether the budget limits anything.
func (b Budget) Limited() bool { return b.MaxBytes > 0 || b.MaxChars > 0 }

// valueMax is the most characters a value's block or diff shows at a
// report's full fidelity (0: all of them); collapsed, at the level after,
// where a limited budget caps values at BlockMax at most.
func (b Budget) valueMax(collapsed bool) int {
	m := b.ValueMax
	switch {
	case m < 0:
		m = 0
	case m == 0 && b.Limited():
		m = BlockMax
	}
	if collapsed && b.Limited() && (m == 0 || m > BlockMax) {
		m = BlockMax
	}
	return m
}

// Fits reports whether s is within the budget.
func (b Budget) Fits(s string) bool {
	if b.MaxBytes > 0 && len(s) > b.MaxBytes {
		return false
	}
	// A string has at least len/4 code points and at most len.
	if b.MaxChars > 0 && len(s) > b.MaxChars && utf8.RuneCountInString(s) > b.MaxChars {
		return false
	}
	return true
}

// ShortenedNote is the visible note of a degraded report. hint is trusted
// Markdown saying where the full report is; "" leaves that part out.
func (b Budget) ShortenedNote(hint string) string {
	if b.Hint != "" {
		hint = b.Hint
	}
	where := "the size limit"
	if b.Channel != "" {
		where = b.Channel + "'s limit"
	}
	note := "✂️ **Report shortened** to fit " + where
	if hint != "" {
		note += "; the full report is in " + hint
	}
	return note + "."
}

// Writer builds a report within a budget. Once the budget is exceeded it
// stops growing and Over turns true, so a renderer can give up on a level
// after writing about one budget's worth instead of the whole report.
type Writer struct {
	b      strings.Builder
	budget Budget
	chars  int
	over   bool
}

// NewWriter starts an empty report for the budget.
func NewWriter(b Budget) *Writer {
	w := &Writer{budget: b}
	// Growing a comment-sized report by doubling costs more than its size.
	if limit := max(b.MaxBytes, b.MaxChars); limit > 0 && limit <= 2<<20 {
		w.b.Grow(limit + limit/4)
	}
	return w
}

// WriteString appends s, unless the budget is already exceeded. It never
// fails; the results are there to satisfy io.StringWriter.
func (w *Writer) WriteString(s string) (int, error) {
	if w.over {
		return len(s), nil
	}
	if w.b.Cap()-w.b.Len() < len(s) {
		// Grow doubles, without clearing; append would grow a megabyte
		// report by a quarter at a time, allocating five times its size.
		w.b.Grow(len(s))
	}
	w.b.WriteString(s)
	if w.budget.MaxBytes > 0 && w.b.Len() > w.budget.MaxBytes {
		w.over = true
	}
	if w.budget.MaxChars > 0 {
		w.chars += utf8.RuneCountInString(s)
		if w.chars > w.budget.MaxChars {
			w.over = true
		}
	}
	return len(s), nil
}

// Grow makes room for n more bytes, as strings.Builder.Grow.
func (w *Writer) Grow(n int) { w.b.Grow(n) }

// Fence writes a fenced block (see Fence) with every line prefixed by indent,
// and a final newline.
func (w *Writer) Fence(s, lang, indent string) { writeFence(w, s, lang, indent) }

// Abandon marks the level as not fitting without writing anything more: for
// a renderer that can tell in advance.
func (w *Writer) Abandon() { w.over = true }

// Chars is the number of code points written, counted only when the budget
// limits them.
func (w *Writer) Chars() int { return w.chars }

// Write appends each part in turn.
func (w *Writer) Write(parts ...string) {
	for _, p := range parts {
		w.WriteString(p)
	}
}

// Block starts a new Markdown block: it makes sure a blank line separates it
// from what was written before.
func (w *Writer) Block() {
	s := w.b.String()
	switch {
	case s == "", strings.HasSuffix(s, "\n\n"):
	case strings.HasSuffix(s, "\n"):
		w.WriteString("\n")
	default:
		w.WriteString("\n\n")
	}
}

// Over reports that the budget was exceeded: what was written is incomplete.
func (w *Writer) Over() bool { return w.over }

// Len is the number of bytes written.
func (w *Writer) Len() int { return w.b.Len() }

// String returns what was written.
func (w *Writer) String() string { return w.b.String() }

// Fit renders at levels 0, 1, ... until a level fits the budget: level 0 is
// full fidelity, each next level shows less. If even the last level is too
// big, its start is kept and cut with Truncate, ending with tail.
func Fit(b Budget, levels int, render func(w *Writer, level int), tail string) string {
	var w *Writer
	for level := 0; level < levels; level++ {
		w = NewWriter(b)
		render(w, level)
		if !w.Over() {
			return w.String()
		}
	}
	if w == nil {
		return ""
	}
	return Truncate(w.String(), b, tail)
}

// Truncate cuts s to the budget as a last resort: at a line boundary when
// one is near, else at a rune boundary, then closes any fence and <details>
// left open and appends tail as its own paragraph. The result always fits,
// even when that leaves only part of tail.
func Truncate(s string, b Budget, tail string) string {
	if b.Fits(s) {
		return s
	}
	end := prefixWithin(s, b)
	for end > 0 {
		cut := cutPoint(s[:end])
		out := s[:cut] + closers(s[:cut])
		if tail != "" {
			out += "\n" + tail + "\n"
		}
		if b.Fits(out) {
			return out
		}
		// Step back by the overshoot, counted in code points: that is at
		// least as many bytes.
		excess := 0
		if b.MaxBytes > 0 {
			excess = len(out) - b.MaxBytes
		}
		if b.MaxChars > 0 {
			excess = max(excess, utf8.RuneCountInString(out)-b.MaxChars)
		}
		end = cut
		for n := 0; n < max(excess, 1) && end > 0; n++ {
			_, size := utf8.DecodeLastRuneInString(s[:end])
			end -= size
		}
	}
	// Not even the tail fits on its own: keep what of it does.
	return tail[:prefixWithin(tail, b)]
}

// prefixWithin is the length of the longest prefix of s, ending on a rune
// boundary, that fits the budget.
func prefixWithin(s string, b Budget) int {
	if b.Fits(s) {
		return len(s)
	}
	end := len(s)
	if b.MaxBytes > 0 {
		end = min(end, b.MaxBytes)
	}
	if b.MaxChars > 0 {
		n, i := 0, 0
		for i < end && n < b.MaxChars {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		end = min(end, i)
	}
	for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	return end
}

// cutPoint prefers ending s after its last line break, so no code span, tag
// or character reference is split, unless that loses more than half of it.
func cutPoint(s string) int {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 && i+1 >= len(s)/2 {
		return i + 1
	}
	// Mid-line: do not leave half a character reference such as "&l".
	if amp := strings.LastIndexByte(s, '&'); amp >= 0 && amp >= len(s)-10 && !strings.Contains(s[amp:], ";") {
		return amp
	}
	return len(s)
}

// closers returns what closes the fence and the <details> blocks left open
// at the end of s, a report written by this package: fences and <details>
// lines start a line, possibly indented inside a list item.
func closers(s string) string {
	var fence string // the open fence, "" outside one
	var fenceIndent string
	depth := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\n")
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			t := strings.TrimRight(trimmed, " ")
			if n := leadingRun(t, fence[0]); n == len(t) && n >= len(fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:leadingRun(trimmed, trimmed[0])]
			fenceIndent = line[:len(line)-len(trimmed)]
		case strings.HasPrefix(trimmed, "<details"):
			depth++
		case strings.HasPrefix(trimmed, "</details>"):
			depth--
		}
	}
	var b strings.Builder
	if !strings.HasSuffix(s, "\n") && s != "" {
		b.WriteString("\n")
	}
	if fence != "" {
		b.WriteString(fenceIndent + fence + "\n")
	}
	for ; depth > 0; depth-- {
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

func leadingRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}
