package secrets

import (
	"bytes"
	"slices"
	"strings"
)

// span is a half-open byte range [start, end) of text to replace.
type span struct{ start, end int }

// filterBits sizes the prefix filter: 2^18 bits (32 KiB) keeps the false
// positive rate around a few percent for tens of thousands of patterns.
const filterBits = 18

// matcher finds every occurrence of a fixed set of patterns in one pass.
//
// Every pattern is at least minPatternBytes long, so it is keyed by its first
// four bytes. The scan rolls a 4-byte window over the text; a bit filter
// rejects almost every window with one load, and only windows whose key is a
// pattern prefix are checked against the candidates, longest first. This costs
// a few nanoseconds per byte whatever the number of patterns, which suits MBs
// of text and thousands of patterns (hundreds of values times their
// encodings) better than one regexp or a strings.Replacer.
type matcher struct {
	filter []uint64
	byKey  map[uint32][]string // candidates per 4-byte prefix, longest first
	maxLen int

	// starByTail holds the patterns containing '*' by their last four bytes,
	// longest first: only those can match across an inserted Replacement.
	starByTail map[uint32][]string

	// seen holds every pattern added, so that adding one again is free.
	seen map[string]bool

	// hex matches what hex runs decode to (see findDecoded): the values
	// as they are, not their encodings, which would be many short
	// patterns for the pseudo-random bytes of a digest to hit. nil: m.
	hex *matcher

	// short holds the first 1, 2 and 3 bytes of every pattern: with
	// byKey, whether a text's end may be the start of an occurrence (see
	// openPrefix).
	short map[string]bool
}

func newMatcher() *matcher {
	return &matcher{
		filter: make([]uint64, (1<<filterBits)/64),
		byKey:  make(map[uint32][]string),
		seen:   make(map[string]bool),
	}
}

// add inserts patterns into m. It costs time in the patterns added, not in
// those m holds already, so a Set that learns values one by one between
// redactions stays linear in what it learns.
func (m *matcher) add(patterns []string) {
	for _, p := range patterns {
		if len(p) < minPatternBytes || m.seen[p] {
			continue
		}
		m.seen[p] = true
		k := key4(p, 0)
		m.byKey[k] = insertLongestFirst(m.byKey[k], p)
		h := filterHash(k)
		m.filter[h/64] |= 1 << (h % 64)
		m.maxLen = max(m.maxLen, len(p))
		if m.short == nil {
			m.short = make(map[string]bool)
		}
		for n := 1; n < minPatternBytes; n++ {
			m.short[p[:n]] = true
		}
		if strings.Contains(p, "*") {
			if m.starByTail == nil {
				m.starByTail = make(map[uint32][]string)
			}
			t := key4(p, len(p)-4)
			m.starByTail[t] = insertLongestFirst(m.starByTail[t], p)
		}
	}
}

// insertLongestFirst inserts p into c, which is sorted longest first (then
// by bytes), keeping that order.
func insertLongestFirst(c []string, p string) []string {
	i, _ := slices.BinarySearchFunc(c, p, longerFirst)
	return slices.Insert(c, i, p)
}

// longerFirst orders patterns longest first, then by bytes: a scan tries the
// longest candidate first, which covers the others.
func longerFirst(a, b string) int {
	if len(a) != len(b) {
		return len(b) - len(a)
	}
	return strings.Compare(a, b)
}

func key4(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func filterHash(k uint32) uint32 {
	return (k * 0x9E3779B1) >> (32 - filterBits)
}

// find returns the merged spans of text covered by any pattern, sorted. Like
// the runner's SecretMasker, overlapping or adjacent occurrences merge into
// one span. With first set it stops at the first occurrence.
func (m *matcher) find(text string, first bool) []span {
	n := len(text)
	if len(m.byKey) == 0 || n < minPatternBytes {
		return nil
	}
	var spans []span
	k := key4(text, 0)
	for i := 0; ; i++ {
		h := filterHash(k)
		if m.filter[h/64]&(1<<(h%64)) != 0 {
			for _, p := range m.byKey[k] {
				if len(p) <= n-i && text[i:i+len(p)] == p {
					end := i + len(p)
					if l := len(spans) - 1; l >= 0 && i <= spans[l].end {
						spans[l].end = max(spans[l].end, end)
					} else {
						spans = append(spans, span{i, end})
					}
					if first {
						return spans
					}
					break // the longest candidate covers the others
				}
			}
		}
		if i+minPatternBytes >= n {
			return spans
		}
		k = k>>8 | uint32(text[i+minPatternBytes])<<24
	}
}

// settle removes the occurrences that replacing spans with Replacement created, so
// that Redact is idempotent. It rebuilds the text byte by byte, keeping the
// invariant that what is built holds no occurrence: after each byte only an
// occurrence ending at that byte can be new, and one is replaced by Replacement
// (merged into a Replacement just before it) whose bytes are then appended the same
// way. Each replacement shortens the text, so this is linear, unlike
// redacting again until nothing changes ("x***" would take one pass per x
// in "xxxx…x***").
//
// Only patterns containing '*' are checked: a star-free piece of what is
// built is a piece of text, which holds no occurrence outside the Replacements in it.
func (m *matcher) settle(text string) string {
	out := make([]byte, 0, len(text))
	var stars int // bytes of Replacement still to append
	for i := 0; i < len(text) || stars > 0; {
		if stars > 0 {
			out = append(out, '*')
			stars--
		} else {
			out = append(out, text[i])
			i++
		}
		if len(out) < minPatternBytes {
			continue
		}
		t := out[len(out)-4:]
		tail := uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
		for _, p := range m.starByTail[tail] {
			if len(p) <= len(out) && string(out[len(out)-len(p):]) == p {
				out = out[:len(out)-len(p)]
				// A Replacement being appended, or just before, now stands for
				// the removed bytes too.
				stars = len(Replacement)
				if bytes.HasSuffix(out, []byte(Replacement)) {
					stars = 0
				}
				break
			}
		}
	}
	return string(out)
}

// startsPattern reports whether s is the start of a pattern longer than s.
func (m *matcher) startsPattern(s []byte) bool {
	if len(s) >= m.maxLen {
		return false
	}
	if len(s) < minPatternBytes {
		return m.short[string(s)]
	}
	for _, p := range m.byKey[uint32(s[0])|uint32(s[1])<<8|uint32(s[2])<<16|uint32(s[3])<<24] {
		if len(p) > len(s) && p[:len(s)] == string(s) {
			return true
		}
	}
	return false
}
