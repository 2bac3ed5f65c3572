package secrets

import (
	"slices"
	"strings"
)

// A secret's base64 (or hex, or any encoding in the base64 alphabet) is
// often wrapped: `base64` at 76 columns, MIME at 76, PEM at 64. Each line on
// its own holds only part of an encoded form, so the matcher is also run
// over each block of such lines joined back together, and an occurrence is
// replaced piece by piece, one Replacement per line it touches.

// minWrapWidth is the shortest line a wrapping encoder writes before the
// last line of a block. Only after a word this long can a block continue,
// which keeps ordinary text (short words at line ends) out of the scan.
const minWrapWidth = 16

// Byte classes for the block scan.
const (
	clsOther = iota
	clsWord  // base64 alphabet, both variants, and padding
	clsBlank // space or tab: indentation inside a block
	clsBreak // CR or LF
	clsEsc   // backslash: a JSON-escaped \n or \r is a line break too
)

var byteClass = func() (c [256]uint8) {
	for b := 'A'; b <= 'Z'; b++ {
		c[b], c[b+'a'-'A'] = clsWord, clsWord
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = clsWord
	}
	for _, b := range "+/=-_" {
		c[b] = clsWord
	}
	c[' '], c['\t'] = clsBlank, clsBlank
	c['\n'], c['\r'] = clsBreak, clsBreak
	c['\\'] = clsEsc
	return c
}()

// word is a maximal run of base64-alphabet bytes, text[start:end].
type word struct{ start, end int }

// forEachBlock calls fn with each block of text: two or more words, each
// separated from the next by nothing but line breaks (CR, LF, or their JSON
// escapes) and blanks, every word but the last at least minWrapWidth long.
// The first word may end a line of other text and the last may start one,
// so a wrapped value after "key: " or before a closing quote counts. fn
// returns false to stop.
func forEachBlock(text string, fn func([]word) bool) {
	// Most lines end with something else than a long word: find the line
	// breaks with IndexByte and look only at what precedes each, so that
	// ordinary text costs little more than the search for its breaks.
	var block []word
	next := breakFinder{text: text}
	for i := 0; ; {
		j, n := next.after(i)
		if j < 0 {
			return
		}
		e := j
		for e > i && byteClass[text[e-1]] == clsBlank {
			e--
		}
		s := e
		for s > i && byteClass[text[s-1]] == clsWord {
			s--
		}
		if e-s < minWrapWidth {
			i = j + n
			continue
		}
		var end int
		block, end = parseBlock(text, s, block[:0])
		if len(block) >= 2 && !fn(block) {
			return
		}
		i = max(end, j+n)
	}
}

// parseBlock reads the block whose first word starts at i: words joined by
// line breaks and blanks, each but the last at least minWrapWidth long. It
// returns the words and where the block ends.
func parseBlock(text string, i int, block []word) ([]word, int) {
	broken := false // a break since the last word
	for i < len(text) {
		switch byteClass[text[i]] {
		case clsWord:
			if len(block) > 0 && !broken {
				return block, i
			}
			j := i + 1
			for j < len(text) && byteClass[text[j]] == clsWord {
				j++
			}
			block = append(block, word{i, j})
			if j-i < minWrapWidth {
				return block, j // a short word ends the block
			}
			broken = false
			i = j
			continue
		case clsBlank:
		case clsBreak:
			broken = true
		case clsEsc:
			if i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 'r') {
				broken = true
				i += 2
				continue
			}
			return block, i
		default:
			return block, i
		}
		i++
	}
	return block, i
}

// breakFinder finds line breaks, real or JSON-escaped, in order. It keeps
// the next position of each kind, so the whole text is searched once per
// kind with IndexByte.
type breakFinder struct {
	text        string
	lf, cr, esc int // next position of each kind; -1 none left, -2 not searched
	started     bool
}

// after returns the first break at or after i and its length, or -1.
func (f *breakFinder) after(i int) (int, int) {
	if !f.started {
		f.started = true
		f.lf, f.cr, f.esc = -2, -2, -2
	}
	f.lf = f.seek(f.lf, i, '\n')
	f.cr = f.seek(f.cr, i, '\r')
	for {
		f.esc = f.seek(f.esc, i, '\\')
		if f.esc < 0 || f.esc+1 < len(f.text) && (f.text[f.esc+1] == 'n' || f.text[f.esc+1] == 'r') {
			break
		}
		i = f.esc + 1
	}
	best, n := -1, 1
	for _, c := range [...]struct{ at, n int }{{f.lf, 1}, {f.cr, 1}, {f.esc, 2}} {
		if c.at >= 0 && (best < 0 || c.at < best) {
			best, n = c.at, c.n
		}
	}
	return best, n
}

// seek returns the first position of c at or after i, reusing have when it
// is still ahead (-1: none left; -2: not searched yet).
func (f *breakFinder) seek(have, i int, c byte) int {
	if have == -1 || have >= i {
		return have
	}
	k := strings.IndexByte(f.text[i:], c)
	if k < 0 {
		return -1
	}
	return i + k
}

// findWrapped returns the pieces of every occurrence that a line break
// inside a block splits (occurrences within one line are find's), sorted
// and merged. With first set it stops at the first such occurrence.
//
// With whole set, each occurrence is one span from its first piece to its
// last, line breaks included: where a stream may be cut (LineWriter).
func (m *matcher) findWrapped(text string, first, whole bool) []span {
	if len(m.byKey) == 0 || !mayWrap(text) {
		return nil
	}
	var out []span
	var joined []byte
	forEachBlock(text, func(ws []word) bool {
		joined = joined[:0]
		for _, w := range ws {
			joined = append(joined, text[w.start:w.end]...)
		}
		for _, sp := range m.find(string(joined), false) {
			n := len(out)
			out = appendPieces(out, ws, sp)
			if whole && len(out) > n {
				out = append(out[:n], span{out[n].start, out[len(out)-1].end})
			}
		}
		return !first || len(out) == 0
	})
	return mergeSpans(out)
}

// mayWrap is a fast test for a line break or an escaped one.
func mayWrap(text string) bool {
	return strings.ContainsAny(text, "\r\n") || strings.Contains(text, `\n`) || strings.Contains(text, `\r`)
}

// appendPieces appends the parts of ws that the joined-text span sp covers,
// when it covers more than one word (appendRunPieces, kept only then).
func appendPieces(out []span, ws []word, sp span) []span {
	n := len(out)
	if out = appendRunPieces(out, ws, sp); len(out)-n < 2 {
		return out[:n]
	}
	return out
}

// mergeSpans sorts spans and merges overlapping and adjacent ones, as find
// does.
func mergeSpans(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:1]
	for _, sp := range spans[1:] {
		if l := len(out) - 1; sp.start <= out[l].end {
			out[l].end = max(out[l].end, sp.end)
		} else {
			out = append(out, sp)
		}
	}
	return out
}

// spans returns every span Redact replaces: find's, findWrapped's and
// findDecoded's, merged.
func (m *matcher) spans(text string, first bool) []span {
	sp := m.find(text, first)
	if first && len(sp) > 0 {
		return sp
	}
	if w := m.findWrapped(text, first, false); len(w) > 0 {
		sp = mergeSpans(append(sp, w...))
		if first {
			return sp
		}
	}
	if d := m.findDecoded(text, first); len(d) > 0 {
		sp = mergeSpans(append(sp, d...))
	}
	return sp
}

// minLeadWidth is how long the word ending a line of other text ("key:
// MIIB…") must be for a stream to hold the line back as the possible start
// of a block. It is longer than minWrapWidth so that a live log does not
// hold back every line that ends with an identifier.
const minLeadWidth = 48

// openBlock returns where the block of base64-looking lines that ends b
// starts, or len(b) when b does not end inside one: b ends with a line
// break, and the lines before it are what a wrapping encoder writes (every
// line one word of at least minWrapWidth, the first one possibly text
// ending with a word of at least minLeadWidth). A stream cut there could
// split an occurrence that the next line completes.
func openBlock(b []byte) int {
	start := len(b)
	end := len(b) // end of the line being looked at, its break excluded
	for end > 0 && byteClass[b[end-1]] == clsBreak {
		end--
	}
	for end > 0 {
		lineStart := end
		for lineStart > 0 && byteClass[b[lineStart-1]] != clsBreak {
			lineStart--
		}
		last := end
		for last > lineStart && byteClass[b[last-1]] == clsBlank {
			last--
		}
		w := last
		for w > lineStart && byteClass[b[w-1]] == clsWord {
			w--
		}
		if last-w < minWrapWidth {
			return start
		}
		first := lineStart
		for first < w && byteClass[b[first]] == clsBlank {
			first++
		}
		if first != w {
			// Text before the word: the block's first line, if any.
			if last-w >= minLeadWidth {
				start = lineStart
			}
			return start
		}
		start = lineStart
		end = lineStart
		for end > 0 && byteClass[b[end-1]] == clsBreak {
			end--
		}
	}
	return start
}

// keepBack returns where the shortest tail of b starts that holds n bytes
// an occurrence can be made of: a wrapped occurrence skips line breaks,
// blanks and escaped breaks, so those do not count.
func keepBack(b []byte, n int) int {
	i := len(b)
	for i > 0 && n > 0 {
		i--
		switch {
		case byteClass[b[i]] == clsBreak, byteClass[b[i]] == clsBlank, b[i] == '\\':
		case (b[i] == 'n' || b[i] == 'r') && i > 0 && b[i-1] == '\\':
		default:
			n--
		}
	}
	return i
}
