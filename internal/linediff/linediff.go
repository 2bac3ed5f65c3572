// Package linediff computes line edit scripts: a shortest one (Myers'
// algorithm) where the changed middle is small enough, placed where a reader
// expects it (removals before additions, runs slid to the least indented
// place). Rendering a script is the reporters' business.
package linediff

import (
	"slices"
	"strings"
)

const (
	// MaxLines is the most lines, after the common prefix and suffix are
	// set aside, that get a shortest diff; longer middles are shown removed
	// and added whole.
	MaxLines = 5000
	// MaxEdits bounds the search for a shortest diff: past that many
	// removed and added lines, the middle is shown removed and added whole.
	// Its memory grows with the square of this.
	MaxEdits = 1000
)

// Op is one line of an edit script: kept (' '), removed from a ('-') or
// added from b ('+'). A and B are its position in each input: for a kept
// line both index it, for a removed line A does and B counts the lines of b
// before it, and the other way round for an added line.
type Op struct {
	Kind byte
	A, B int
}

// Lines returns an edit script turning a into b: a shortest one
// (Myers' algorithm) when the lines that differ are few enough, else the
// common prefix and suffix kept and everything between removed and added.
// Within each run of changes, removals come before additions.
func Lines(a, b []string) []Op {
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
	if !trivial && len(midA) <= MaxLines && len(midB) <= MaxLines {
		kinds = myers(midA, midB, MaxEdits)
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
	ops := make([]Op, len(all))
	i, j := 0, 0
	for n, k := range all {
		ops[n] = Op{Kind: k, A: i, B: j}
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
	// v[off+k] is the furthest x reached on diagonal k (k = x-y). trace
	// keeps, for each step d, diagonals -d-1..d+1 as they were before it,
	// for the way back: 2d+3 values each, one after the other in one slice
	// (step d starts at d²+2d) rather than a slice per step.
	off := limit + 1
	v := make([]int32, 2*limit+3)
	// Steps 0..d keep (d+1)(d+3) values: room for every step of a middle
	// of up to 60 lines (a changed value, mostly), and 16 KiB to start
	// with for a longer one.
	trace := make([]int32, 0, min((limit+1)*(limit+3), 1<<12))
	for d := 0; d <= limit; d++ {
		trace = append(trace, v[off-d-1:off+d+2]...)
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
				return backtrack(trace, d, n, m)
			}
		}
	}
	return nil
}

// backtrack follows myers' furthest-reaching paths from the end (reached
// at step last) back to the start and returns the edit script's kinds in
// order. trace is as myers keeps it.
func backtrack(trace []int32, last, n, m int) []byte {
	rev := make([]byte, 0, n+m)
	i, j := n, m
	for d := last; d >= 0; d-- {
		v := trace[d*d+2*d : d*d+4*d+3]
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
