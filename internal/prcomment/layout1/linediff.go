package layout1

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/linediff"
)

// A line diff shows what changed inside a long value. Two whole blocks side
// by side hide a one-line change in a long policy, and cutting both at the
// same length can hide it altogether.

const (
	// diffContext is how many unchanged lines surround a change.
	diffContext = 3
	// diffLineCut is how long a changed line stays when lines must be cut,
	// before they are cut to InlineMax.
	diffLineCut = 500
)

// diffStyle is how much of a diff to show: context lines around each
// change, and the width lines are cut to (0: whole).
type diffStyle struct {
	context      int
	contextWidth int
	changeWidth  int
}

// diffStyles are the styles a diff is tried in, in order, until one fits:
// context is given up before changed lines are cut. A report level that
// shortens values starts without context, changed lines cut to InlineMax.
func diffStyles(short bool) []diffStyle {
	if short {
		return []diffStyle{{context: 0, changeWidth: InlineMax}}
	}
	return []diffStyle{
		{context: diffContext},
		{context: diffContext, contextWidth: InlineMax},
		{context: 1, contextWidth: InlineMax},
		{context: 0},
		{context: 0, changeWidth: diffLineCut},
		{context: 0, changeWidth: InlineMax},
	}
}

// lineDiff is a line diff of two texts, ready to render within a size.
type lineDiff struct {
	a, b           []string
	ops            []linediff.Op
	removed, added int
}

// newLineDiff diffs two texts line by line; ok is false when no line
// differs (the texts differ only in line endings, or not at all). A final
// newline both texts end with makes no line; one only one ends with shows
// as an empty line added or removed.
func newLineDiff(old, cur string) (d lineDiff, ok bool) {
	if strings.HasSuffix(old, "\n") && strings.HasSuffix(cur, "\n") {
		old, cur = old[:len(old)-1], cur[:len(cur)-1]
	}
	d = lineDiff{a: strings.Split(old, "\n"), b: strings.Split(cur, "\n")}
	d.ops = linediff.Lines(d.a, d.b)
	for _, op := range d.ops {
		switch op.Kind {
		case '-':
			d.removed++
		case '+':
			d.added++
		}
	}
	return d, d.removed+d.added > 0
}

// render writes the diff within limit characters (0: no limit): in the
// first of styles that fits; else in the last one, with each run of changes
// showing only its first removed and added lines, as many as fit, and
// counting the rest; else, with one of each, up to the last run that fits
// and counting every changed line after it. shortened reports that the
// diff is not shown in full: in a style other than the first, or with
// lines cut or left out.
func (d lineDiff) render(limit int, styles []diffStyle) (text string, shortened bool) {
	for i, st := range styles {
		if r := d.renderStyle(st, limit, 0); r.ok {
			return r.text, i > 0 || r.cut
		}
	}
	last := styles[len(styles)-1]
	// The most lines of each side a run may show and still fit: fitting
	// only gets harder as it grows.
	lo, hi := 0, d.longestRun()
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.renderStyle(last, limit, mid).ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		return d.renderStyle(last, limit, lo).text, true
	}
	// Keep room for the line saying what is left out.
	room := limit - utf8.RuneCountInString(droppedLine(d.removed, d.added))
	r := d.renderStyle(last, max(room, 1), 1)
	return r.text + droppedLine(d.removed-r.removed, d.added-r.added), true
}

// longestRun is the most lines removed, or added, by one run of changes.
func (d lineDiff) longestRun() int {
	longest, removed, added := 0, 0, 0
	for _, op := range d.ops {
		switch op.Kind {
		case '-':
			removed++
		case '+':
			added++
		default:
			removed, added = 0, 0
		}
		longest = max(longest, removed, added)
	}
	return longest
}

// rendered is a diff written in one style, whole (ok) or up to the first
// line that did not fit.
type rendered struct {
	text           string
	ok             bool
	cut            bool // a line was cut
	removed, added int  // changed lines written or counted as left out
}

// renderStyle writes the diff in one style, stopping before the first line
// that would take it past limit characters (0: no limit). With perRun > 0,
// each run of changes shows at most that many removed and added lines and
// says how many more of each it leaves out.
func (d lineDiff) renderStyle(st diffStyle, limit, perRun int) rendered {
	hunks := d.hunks(st.context)
	var b strings.Builder
	b.Grow(d.hunksSize(hunks, limit))
	r := rendered{ok: true}
	size := 0
	// write adds the parts of a line: all of them, or none if they would
	// take the diff past limit characters.
	write := func(parts ...string) bool {
		if limit > 0 {
			n := 0
			for _, p := range parts {
				n += utf8.RuneCountInString(p)
			}
			if size+n > limit {
				r.ok = false
				return false
			}
			size += n
		}
		for _, p := range parts {
			b.WriteString(p)
		}
		return true
	}
	line := func(op linediff.Op) bool {
		var l string
		width := st.changeWidth
		switch op.Kind {
		case ' ':
			l, width = d.a[op.A], st.contextWidth
		case '-':
			l = d.a[op.A]
		case '+':
			l = d.b[op.B]
		}
		if width > 0 {
			if head, more := cutRunes(l, width); more > 0 {
				r.cut = true
				return write(string(op.Kind), head, " … ", moreChars(more), "\n")
			}
		}
		return write(string(op.Kind), l, "\n")
	}
hunks:
	for _, h := range hunks {
		if !write(hunkHeader(d.ops[h[0]:h[1]])) {
			break
		}
		shown, kind := 0, byte(' ') // lines of the current side of a run
		for p := h[0]; p < h[1]; p++ {
			op := d.ops[p]
			if op.Kind != kind {
				shown, kind = 0, op.Kind
			}
			if op.Kind != ' ' && perRun > 0 && shown == perRun {
				// Count the rest of this side of the run.
				q := p
				for q < h[1] && d.ops[q].Kind == op.Kind {
					q++
				}
				if !write(runLeftOut(op.Kind, q-p)) {
					break hunks
				}
				if op.Kind == '-' {
					r.removed += q - p
				} else {
					r.added += q - p
				}
				p = q - 1
				continue
			}
			if !line(op) {
				break hunks
			}
			shown++
			switch op.Kind {
			case '-':
				r.removed++
			case '+':
				r.added++
			}
		}
	}
	r.text = b.String()
	return r
}

// hunksSize is the bytes of the hunks written whole, or of limit
// characters when that is less: what to size the text for.
func (d lineDiff) hunksSize(hunks [][2]int, limit int) int {
	n := 0
	for _, h := range hunks {
		n += 32 // the header
		for _, op := range d.ops[h[0]:h[1]] {
			if op.Kind == '+' {
				n += len(d.b[op.B]) + 2
			} else {
				n += len(d.a[op.A]) + 2
			}
		}
	}
	if limit > 0 {
		n = min(n, 4*limit) // a character is at most 4 bytes
	}
	return n
}

// runLeftOut says how many lines one side of a run of changes leaves out.
func runLeftOut(kind byte, n int) string {
	what := "added"
	if kind == '-' {
		what = "removed"
	}
	return "… " + countOf(n, "more "+what+" line", "more "+what+" lines") + " not shown\n"
}

// droppedLine says how many changed lines a shortened diff leaves out.
func droppedLine(removed, added int) string {
	return "… " + countOf(removed+added, "more changed line", "more changed lines") +
		" not shown (" + strconv.Itoa(removed) + " removed, " + strconv.Itoa(added) + " added)\n"
}

// hunks groups the edit script into hunks: changes with up to context kept
// lines around them, merged when their context would touch or overlap.
// Each is the [start, end) range of the ops it covers.
func (d lineDiff) hunks(context int) [][2]int {
	var out [][2]int
	for i, op := range d.ops {
		if op.Kind == ' ' {
			continue
		}
		start, end := max(0, i-context), min(len(d.ops), i+1+context)
		if n := len(out); n > 0 && start <= out[n-1][1] {
			out[n-1][1] = end
			continue
		}
		out = append(out, [2]int{start, end})
	}
	return out
}

// hunkHeader is a hunk's "@@ -start,count +start,count @@" line, lines
// numbered from 1 as diff -u does; a side with no line in the hunk names
// the line before it.
func hunkHeader(ops []linediff.Op) string {
	aLen, bLen := 0, 0
	for _, op := range ops {
		if op.Kind != '+' {
			aLen++
		}
		if op.Kind != '-' {
			bLen++
		}
	}
	return "@@ -" + hunkRange(ops[0].A, aLen) + " +" + hunkRange(ops[0].B, bLen) + " @@\n"
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}
