package secrets

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// On the error path (what cdkd prints when it fails, on its way to the
// log, the job summary, the PR comment and the check run) a secret also
// shows in shapes no encoder writes: upper-cased by an error message, in
// another Unicode normalization (NFD where the value is NFC), or wrapped
// by a line break at any column, indented or not. RedactLoose matches
// those too, for values of at least MinLooseRunes: a shorter value (a word,
// a name) matched without case, or joined across a line break, would redact
// ordinary words of the message. Reports of a successful run are redacted
// exactly (Redact): what a review shows does not depend on these rules.

// MinLooseRunes is the length, in runes after trimming surrounding
// whitespace, from which a value is also matched without case, after
// Unicode normalization and across line breaks (RedactLoose), when it holds
// something besides letters (a digit, a symbol, a space). At 8 runes such
// a match is the value's own spelling, not a word or a short identifier.
const MinLooseRunes = 8

// MinLooseLetterRunes is MinLooseRunes for a value made of letters alone:
// a word-like value ("password", "Database") matched without case would
// hit identifiers in every error message ("DbPassword").
const MinLooseLetterRunes = 16

// looseForms returns the loose patterns of a value: its canonical form
// (see canonical), when it is long enough (see MinLooseRunes).
func looseForms(v string) []string {
	t := strings.TrimSpace(v)
	n := utf8.RuneCountInString(t)
	if n < MinLooseRunes || n < MinLooseLetterRunes && strings.IndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
		return nil
	}
	return []string{string(canonical(v).b)}
}

// canonical returns text in NFC, case-folded (Unicode full case folding:
// "ß" and "SS" fold alike), with each byte mapped to the normalization
// segment of text it comes from.
func canonical(text string) *view {
	v := &view{b: make([]byte, 0, len(text)), from: make([]int32, 0, len(text)), to: make([]int32, 0, len(text))}
	fold := cases.Fold()
	var it norm.Iter
	it.InitString(norm.NFC, text)
	for start := 0; !it.Done(); {
		seg := it.Next()
		end := it.Pos()
		if len(seg) == 1 && seg[0] < utf8.RuneSelf {
			c := seg[0]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			v.emitByte(c, start, end)
		} else {
			v.emit(fold.Bytes(seg), start, end)
		}
		start = end
	}
	return v
}

// joinLines returns text with each line break and the blanks around it
// removed (sep "") or replaced by one space (sep " "), and false when text
// has no line break.
func joinLines(text, sep string) (*view, bool) {
	if !strings.ContainsAny(text, "\r\n") {
		return nil, false
	}
	v := &view{b: make([]byte, 0, len(text)), from: make([]int32, 0, len(text)), to: make([]int32, 0, len(text))}
	for i := 0; i < len(text); {
		s, e, ok := breakAt(text, i)
		if !ok {
			v.emitByte(text[i], i, i+1)
			i++
			continue
		}
		// Blanks before the break were emitted; take them back.
		for len(v.b) > 0 && (v.b[len(v.b)-1] == ' ' || v.b[len(v.b)-1] == '\t') && int(v.from[len(v.b)-1]) >= s {
			v.b, v.from, v.to = v.b[:len(v.b)-1], v.from[:len(v.from)-1], v.to[:len(v.to)-1]
		}
		if sep != "" {
			v.emit([]byte(sep), s, e)
		}
		i = e
	}
	return v, true
}

// breakAt reports a line break at text[i] with the blanks around it:
// [s, e) covers the blanks before it, the break (CR, LF or CRLF) and the
// blanks after it.
func breakAt(text string, i int) (s, e int, ok bool) {
	if text[i] != '\n' && text[i] != '\r' {
		return 0, 0, false
	}
	s = i
	for s > 0 && (text[s-1] == ' ' || text[s-1] == '\t') {
		s--
	}
	e = i + 1
	if text[i] == '\r' && e < len(text) && text[e] == '\n' {
		e++
	}
	for e < len(text) && (text[e] == ' ' || text[e] == '\t') {
		e++
	}
	return s, e, true
}

// findLoose returns the spans of text that hold a loose pattern: on one
// line without case or normalization, or across line breaks. A span that
// crosses line breaks is split into one piece per line, so the breaks and
// the indentation stay; with whole set it is kept whole (where a stream
// may be cut). With first set it stops at the first.
func (m *matcher) findLoose(text string, first, whole bool) []span {
	if len(m.byKey) == 0 || len(text) < minPatternBytes {
		return nil
	}
	var out []span
	c := canonical(text)
	out = append(out, c.original(m.find(string(c.b), first))...)
	for _, sep := range []string{"", " "} {
		if first && len(out) > 0 {
			break
		}
		j, ok := joinLines(text, sep)
		if !ok {
			break
		}
		c := canonical(string(j.b))
		c.compose(j)
		out = append(out, c.original(m.find(string(c.b), first))...)
	}
	if whole {
		return mergeSpans(out)
	}
	var pieces []span
	for _, sp := range out {
		pieces = appendLinePieces(pieces, text, sp)
	}
	return mergeSpans(pieces)
}

// appendLinePieces appends sp split at the line breaks inside it (each
// break with the blanks around it left out).
func appendLinePieces(out []span, text string, sp span) []span {
	start := sp.start
	for i := sp.start; i < sp.end; i++ {
		s, e, ok := breakAt(text, i)
		if !ok {
			continue
		}
		if s > start {
			out = append(out, span{start, s})
		}
		start, i = e, e-1
	}
	if sp.end > start {
		out = append(out, span{start, sp.end})
	}
	return out
}

// RedactLoose is Redact for cdkd's error output: it also replaces every
// value of at least MinLooseRunes written in another case or Unicode
// normalization, or wrapped across lines at any column with or without
// indentation (one Replacement per line it touches). It is idempotent.
func (s *Set) RedactLoose(text string) string {
	text = s.Redact(text)
	inside := s.publicInside()
	s.withLoose(func(ml *matcher) {
		// Replacing a piece can lengthen the text (a line's last byte
		// becomes a Replacement); the bound keeps a value holding '*' from
		// matching its own "***" for ever.
		for range 8 {
			spans := exemptPublic(text, inside, ml.findLoose(text, false, false))
			if len(spans) == 0 {
				return
			}
			text = replaceSpans(text, spans)
		}
	})
	// A Replacement inserted may complete an exact occurrence with a '*' in it.
	return s.Redact(text)
}

// ContainsLoose reports whether RedactLoose would change text.
func (s *Set) ContainsLoose(text string) bool {
	if s.Contains(text) {
		return true
	}
	var found bool
	inside := s.publicInside()
	s.withLoose(func(ml *matcher) {
		found = len(exemptPublic(text, inside, ml.findLoose(text, inside == nil, false))) > 0
	})
	return found
}

// withLoose calls f with the loose matcher, under the read lock (see
// withMatcher).
func (s *Set) withLoose(f func(ml *matcher)) { s.with(true, f) }

// openPrefix returns where, in text, an occurrence that the text after it
// could complete may start (len(text) when none): the earliest position
// whose rest of the text, its lines joined and in canonical form, is the
// start of a loose pattern. A start under minPatternBytes bytes from the
// end counts only at a word's start (after a byte that is not a letter or
// a digit, or at a line's start): "StackA" ending a line is not held back
// for a value that starts with "a".
func (m *matcher) openPrefix(text string) int {
	open := len(text)
	if m.maxLen == 0 {
		return open
	}
	try := func(v *view) {
		for i := max(0, len(v.b)-m.maxLen+1); i < len(v.b); i++ {
			if len(v.b)-i < minPatternBytes && i > 0 && isAlnum(v.b[i-1]) {
				continue
			}
			if m.startsPattern(v.b[i:]) {
				open = min(open, int(v.from[i]))
				return
			}
		}
	}
	try(canonical(text))
	for _, sep := range []string{"", " "} {
		j, ok := joinLines(text, sep)
		if !ok {
			break
		}
		c := canonical(string(j.b))
		c.compose(j)
		try(c)
	}
	return open
}
