package reporters

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A line diff shows what changed inside a long value. Two whole blocks side
// by side hide a one-line change in a long policy, and cutting both at the
// same length can hide it altogether.

const (
	// diffContext is how many unchanged lines surround a change.
	diffContext = 3
	// diffMaxLines is the most lines, after the common prefix and suffix are
	// set aside, that get a shortest diff; longer middles are shown removed
	// and added whole.
	diffMaxLines = 5000
	// diffMaxEdits bounds the search for a shortest diff: past that many
	// removed and added lines, the middle is shown removed and added whole.
	// Its memory grows with the square of this.
	diffMaxEdits = 1000
	// diffLineCut is how long a changed line stays when lines must be cut,
	// before they are cut to InlineMax.
	diffLineCut = 500
)

// lineOp is one line of an edit script: kept (' '), removed from a ('-') or
// added from b ('+'). a and b are its position in each input: for a kept
// line both index it, for a removed line a does and b counts the lines of b
// before it, and the other way round for an added line.
type lineOp struct {
	kind byte
	a, b int
}

// diffLines returns an edit script turning a into b: a shortest one
// (Myers' algorithm) when the lines that differ are few enough, else the
// common prefix and suffix kept and everything between removed and added.
// Within each run of changes, removals come before additions.
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	midA, midB := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var kinds []byte
	// With a side empty, or one line each that differ, the middle is all
	// change: nothing to search.
	trivial := len(midA) == 0 || len(midB) == 0 || (len(midA) == 1 && len(midB) == 1)
	if !trivial && len(midA) <= diffMaxLines && len(midB) <= diffMaxLines {
		kinds = myers(midA, midB, diffMaxEdits)
	}
	all := make([]byte, 0, len(a)+len(b)-pre-suf)
	all = repeat(all, ' ', pre)
	if kinds == nil {
		all = repeat(repeat(all, '-', len(midA)), '+', len(midB))
	} else {
		all = appendRemovalsFirst(all, kinds)
	}
	all = repeat(all, ' ', suf)
	slide(all, a, b)
	ops := make([]lineOp, len(all))
	i, j := 0, 0
	for n, k := range all {
		ops[n] = lineOp{kind: k, a: i, b: j}
		if k != '+' {
			i++
		}
		if k != '-' {
			j++
		}
	}
	return ops
}

// myers returns the kinds (' ', '-', '+') of a shortest edit script turning
// a into b, or nil when it takes more than maxEdits removed and added lines.
func myers(a, b []string, maxEdits int) []byte {
	// Compare numbers, not strings.
	ids := make(map[string]int32, len(a)+len(b))
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	n, m := len(x), len(y)
	limit := min(n+m, maxEdits)
	// v[off+k] is the furthest x reached on diagonal k (k = x-y). trace[d]
	// keeps diagonals -d-1..d+1 as they were before step d, for the way back.
	off := limit + 1
	v := make([]int32, 2*limit+3)
	var trace [][]int32
	for d := 0; d <= limit; d++ {
		trace = append(trace, slices.Clone(v[off-d-1:off+d+2]))
		for k := -d; k <= d; k += 2 {
			var i int32
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				i = v[off+k+1] // down: add a line of b
			} else {
				i = v[off+k-1] + 1 // right: remove a line of a
			}
			j := i - int32(k)
			for int(i) < n && int(j) < m && x[i] == y[j] {
				i++
				j++
			}
			v[off+k] = i
			if int(i) >= n && int(j) >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return nil
}

// backtrack follows myers' furthest-reaching paths from the end back to
// the start and returns the edit script's kinds in order.
func backtrack(trace [][]int32, n, m int) []byte {
	rev := make([]byte, 0, n+m)
	i, j := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		at := func(k int) int { return int(v[k+d+1]) } // v starts at diagonal -d-1
		k := i - j
		pk := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		}
		pi := at(pk)
		pj := pi - pk
		for i > pi && j > pj {
			i--
			j--
			rev = append(rev, ' ')
		}
		if d == 0 {
			break
		}
		if i == pi {
			rev = append(rev, '+')
		} else {
			rev = append(rev, '-')
		}
		i, j = pi, pj
	}
	slices.Reverse(rev)
	return rev
}

// appendRemovalsFirst appends kinds with each run of changes reordered so
// that its removals come before its additions, as unified diffs read. Both
// inputs' lines stay in order.
func appendRemovalsFirst(out, kinds []byte) []byte {
	adds := 0
	for _, k := range kinds {
		switch k {
		case '+':
			adds++
		case '-':
			out = append(out, k)
		default:
			out = append(repeat(out, '+', adds), k)
			adds = 0
		}
	}
	return repeat(out, '+', adds)
}

// repeat appends n copies of c.
func repeat(out []byte, c byte, n int) []byte {
	for range n {
		out = append(out, c)
	}
	return out
}

// slide moves each run of only added or only removed lines, among the
// places it could equally be, to where its first and last lines are least
// indented, the lowest such place on a tie: an added JSON object then
// reads "{ … }," rather than "… }, {". A run never slides next to
// another.
func slide(kinds []byte, a, b []string) {
	i, j := 0, 0 // lines of a and b before kinds[s]
	for s := 0; s < len(kinds); {
		if kinds[s] == ' ' {
			i, j, s = i+1, j+1, s+1
			continue
		}
		e := s
		for e < len(kinds) && kinds[e] == kinds[s] {
			e++
		}
		if e < len(kinds) && kinds[e] != ' ' {
			// Removals followed by additions: a change, not a run to slide.
			for e < len(kinds) && kinds[e] != ' ' {
				e++
			}
			for _, k := range kinds[s:e] {
				if k == '-' {
					i++
				} else {
					j++
				}
			}
			s = e
			continue
		}
		lines, at := b, j
		if kinds[s] == '-' {
			lines, at = a, i
		}
		n := e - s
		kept := func(p int) bool { return p < 0 || p >= len(kinds) || kinds[p] == ' ' }
		up := 0
		for s-up-1 >= 0 && kept(s-up-1) && kept(s-up-2) && lines[at-up-1] == lines[at+n-1-up] {
			up++
		}
		down := 0
		for e+down < len(kinds) && kept(e+down) && kept(e+down+1) && lines[at+n+down] == lines[at+down] {
			down++
		}
		best, bestScore := 0, -1
		for t := -up; t <= down; t++ {
			score := indent(lines[at+t]) + indent(lines[at+t+n-1])
			if bestScore < 0 || score <= bestScore {
				best, bestScore = t, score
			}
		}
		k := kinds[s]
		for p := s; p < e; p++ {
			kinds[p] = ' '
		}
		for p := s + best; p < e+best; p++ {
			kinds[p] = k
		}
		// Carry on after the run where it now ends.
		if k == '-' {
			i += n + best
			j += best
		} else {
			i += best
			j += n + best
		}
		s = e + best
	}
}

// indent is the width of a line's leading blanks.
func indent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

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
	ops            []lineOp
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
	d.ops = diffLines(d.a, d.b)
	for _, op := range d.ops {
		switch op.kind {
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
		switch op.kind {
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
	var b strings.Builder
	r := rendered{ok: true}
	size := 0
	write := func(s string) bool {
		n := utf8.RuneCountInString(s)
		if limit > 0 && size+n > limit {
			r.ok = false
			return false
		}
		b.WriteString(s)
		size += n
		return true
	}
	line := func(op lineOp) string {
		var l string
		width := st.changeWidth
		switch op.kind {
		case ' ':
			l, width = d.a[op.a], st.contextWidth
		case '-':
			l = d.a[op.a]
		case '+':
			l = d.b[op.b]
		}
		if width > 0 {
			if head, more := cutRunes(l, width); more > 0 {
				l, r.cut = head+" … "+moreChars(more), true
			}
		}
		return string(op.kind) + l + "\n"
	}
hunks:
	for _, h := range d.hunks(st.context) {
		if !write(hunkHeader(d.ops[h[0]:h[1]])) {
			break
		}
		shown, kind := 0, byte(' ') // lines of the current side of a run
		for p := h[0]; p < h[1]; p++ {
			op := d.ops[p]
			if op.kind != kind {
				shown, kind = 0, op.kind
			}
			if op.kind != ' ' && perRun > 0 && shown == perRun {
				// Count the rest of this side of the run.
				q := p
				for q < h[1] && d.ops[q].kind == op.kind {
					q++
				}
				if !write(runLeftOut(op.kind, q-p)) {
					break hunks
				}
				if op.kind == '-' {
					r.removed += q - p
				} else {
					r.added += q - p
				}
				p = q - 1
				continue
			}
			if !write(line(op)) {
				break hunks
			}
			shown++
			switch op.kind {
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
		if op.kind == ' ' {
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
func hunkHeader(ops []lineOp) string {
	aLen, bLen := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			aLen++
		}
		if op.kind != '-' {
			bLen++
		}
	}
	return "@@ -" + hunkRange(ops[0].a, aLen) + " +" + hunkRange(ops[0].b, bLen) + " @@\n"
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
