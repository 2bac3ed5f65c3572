package secrets

import (
	"html"
	"math/bits"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Matching by meaning. The patterns are a value's exact encodings by the
// encoders we know of (encodings.go); an encoder nobody listed writes other
// spellings: lower-case %xx, every character as \uXXXX, numeric HTML
// entities, hex. So the text itself is decoded too: every escape sequence
// it holds is replaced by what it stands for, the matcher runs over the
// decoded text, and an occurrence there is mapped back to the span of the
// original text it was decoded from, which is replaced whole.
//
// Decoded, each family on its own and then all together, and an escape
// that decodes to another escape decoded again (up to maxDecodeDepth):
//   - percent escapes %XX in either case, and escape()'s %uXXXX;
//   - backslash escapes: \uXXXX (surrogate pairs joined), \u{XXXXX},
//     \UXXXXXXXX, \xXX, and JSON's short escapes \" \\ \/ \b \f \n \r \t
//     (and \');
//   - HTML and XML character references: numeric (&#65; &#x41; &#X41;,
//     at most 8 digits, the ';' optional) and named (&amp; &eacute; ...).
//
// A byte escape (%XX, \xXX) above 7F is a UTF-8 byte when it and the
// escapes after it form a character, else the code point U+00XX (Python's
// and JavaScript's \xXX, escape()'s %XX). Runs of at least minHexRun hex
// digits, either case, are decoded from their first and from their second
// digit, and matched against the values alone (matcher.hex).
//
// The list is the decoders, not the encoders: any encoder writing one of
// these spellings, in any mix, is covered.

// maxDecodeDepth is how many times an escape is decoded: "%2541" is "%41"
// once and "A" twice (a value URL-encoded twice, JSON inside JSON).
const maxDecodeDepth = 2

// maxEscapeGrowth bounds how many bytes of text one decoded byte comes
// from ("&#x0001F511;" is 12 bytes for 4): a stream keeps back that many
// times the longest pattern so that no encoded occurrence is cut.
const maxEscapeGrowth = 12

// minHexRun is the shortest hex run decoded: two digits per byte of the
// shortest pattern.
const minHexRun = 2 * minPatternBytes

// view is text rewritten (decoded, case-folded, joined across lines) with,
// for each byte, the span of the original text it comes from.
type view struct {
	b        []byte
	from, to []int32
}

func (v *view) emit(b []byte, from, to int) {
	for _, c := range b {
		v.b = append(v.b, c)
		v.from = append(v.from, int32(from))
		v.to = append(v.to, int32(to))
	}
}

func (v *view) emitByte(c byte, from, to int) {
	v.b = append(v.b, c)
	v.from = append(v.from, int32(from))
	v.to = append(v.to, int32(to))
}

// original maps spans of v back to the text v was made from.
func (v *view) original(spans []span) []span {
	out := make([]span, 0, len(spans))
	for _, sp := range spans {
		out = append(out, span{int(v.from[sp.start]), int(v.to[sp.end-1])})
	}
	return out
}

// compose maps v, made from the text of under, to under's original text.
func (v *view) compose(under *view) {
	for i := range v.b {
		v.from[i], v.to[i] = under.from[v.from[i]], under.to[v.to[i]-1]
	}
}

// Escape families: an encoder writes one, so the text is also decoded one
// family at a time. A value may hold what looks like another family's
// escape ("%e5" in a password that Python's repr escaped with
// backslashes): decoding every family at once would change that part.
const (
	famPercent = 1 << iota
	famBackslash
	famEntity
	famAll = famPercent | famBackslash | famEntity
)

// families returns the escape families text may hold.
func families(text string) int {
	f := 0
	if strings.IndexByte(text, '%') >= 0 {
		f |= famPercent
	}
	if strings.IndexByte(text, '\\') >= 0 {
		f |= famBackslash
	}
	if strings.IndexByte(text, '&') >= 0 {
		f |= famEntity
	}
	return f
}

// decoded is text with its escapes decoded, mapped back to the text by
// one entry per escape: the bytes between escapes map byte for byte. That
// is a few bytes per escape where a map per byte (view) takes 9 per byte:
// a rendered report is mostly literal text between entities, and sinks
// redact megabytes of it.
type decoded struct {
	b    []byte
	escs []esc
}

// esc maps bytes [d, d+n) of decoded.b, what one escape decodes to, to
// the escape [o, o+on) in the text.
type esc struct {
	d, o  int32
	n, on uint8
}

// emit appends what the escape text[from:to] stands for.
func (v *decoded) emit(b []byte, from, to int) {
	v.escs = append(v.escs, esc{d: int32(len(v.b)), o: int32(from), n: uint8(len(b)), on: uint8(to - from)})
	v.b = append(v.b, b...)
}

func (v *decoded) emitByte(c byte, from, to int) {
	b := [1]byte{c}
	v.emit(b[:], from, to)
}

func (v *decoded) emitRune(r rune, from, to int) {
	var buf [utf8.UTFMax]byte
	v.emit(buf[:utf8.EncodeRune(buf[:], r)], from, to)
}

// source returns the span of the text that b[i] comes from.
func (v *decoded) source(i int) (from, to int) {
	// The last escape that starts at or before i.
	k := sort.Search(len(v.escs), func(k int) bool { return int(v.escs[k].d) > i }) - 1
	if k < 0 {
		return i, i + 1
	}
	e := v.escs[k]
	if end := int(e.d) + int(e.n); i >= end {
		o := int(e.o) + int(e.on) + i - end
		return o, o + 1
	}
	return int(e.o), int(e.o) + int(e.on)
}

// original maps a span of b to the span of the text it comes from.
func (v *decoded) original(sp span) span {
	from, _ := v.source(sp.start)
	_, to := v.source(sp.end - 1)
	return span{from, to}
}

// escapeStart marks the bytes that start an escape of each family.
var escapeStart = func() (t [famAll + 1][256]bool) {
	for fam := range t {
		t[fam]['%'] = fam&famPercent != 0
		t[fam]['\\'] = fam&famBackslash != 0
		t[fam]['&'] = fam&famEntity != 0
	}
	return t
}()

// decodeEscapes returns text with the escape sequences of the families in
// fam decoded, and false when it holds none.
func decodeEscapes(text string, fam int) (*decoded, bool) {
	v := &decoded{b: make([]byte, 0, len(text))}
	found := false
	lit := 0 // start of the literal run not yet appended
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !escapeStart[fam][c] {
			continue
		}
		v.b = append(v.b, text[lit:i]...)
		n := 0
		switch c {
		case '%':
			n = decodePercent(text, i, v)
		case '\\':
			n = decodeBackslash(text, i, v)
		case '&':
			n = decodeEntity(text, i, v)
		}
		if n == 0 {
			lit = i // a literal byte after all
			continue
		}
		found = true
		i += n - 1
		lit = i + 1
	}
	v.b = append(v.b, text[lit:]...)
	return v, found
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hexAt reads n hex digits at text[i:], or false.
func hexAt(text string, i, n int) (rune, bool) {
	if i+n > len(text) {
		return 0, false
	}
	var r rune
	for k := range n {
		d, ok := hexVal(text[i+k])
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// decodePercent decodes %XX (or JavaScript's escape() %uXXXX) at text[i];
// it returns the bytes read, 0 when there is no escape.
func decodePercent(text string, i int, v *decoded) int {
	if i+1 < len(text) && (text[i+1] == 'u' || text[i+1] == 'U') {
		return decodeUnits(text, i, 2, v)
	}
	return decodeBytes(text, i, "%", v)
}

// decodeBytes decodes a run of byte escapes (prefix and two hex digits) at
// text[i]. Bytes that form UTF-8 are taken as bytes (percent-encoding, C's
// and Go's \x); a byte above 0x7F that does not is taken as the code point
// U+00XX, as Python's and JavaScript's \xXX and escape()'s %XX mean it.
func decodeBytes(text string, i int, prefix string, v *decoded) int {
	w := len(prefix) + 2
	at := func(k int) (byte, bool) {
		j := i + k*w
		if j+w > len(text) || text[j:j+len(prefix)] != prefix {
			return 0, false
		}
		b, ok := hexAt(text, j+len(prefix), 2)
		return byte(b), ok
	}
	b, ok := at(0)
	if !ok {
		return 0
	}
	if b < utf8.RuneSelf {
		v.emitByte(b, i, i+w)
		return w
	}
	var buf [utf8.UTFMax]byte
	buf[0] = b
	n := 1
	switch {
	case b&0xE0 == 0xC0:
		n = 2
	case b&0xF0 == 0xE0:
		n = 3
	case b&0xF8 == 0xF0:
		n = 4
	}
	for k := 1; k < n; k++ {
		if buf[k], ok = at(k); !ok {
			n = 1
			break
		}
	}
	if n > 1 && utf8.Valid(buf[:n]) {
		for k := range n {
			v.emitByte(buf[k], i+k*w, i+(k+1)*w)
		}
		return n * w
	}
	v.emitRune(rune(b), i, i+w)
	return w
}

// decodeUnits decodes a UTF-16 code unit written as a prefix of skip bytes
// and four hex digits at text[i] ("\\u00e9", "%u00E9"), joining a
// surrogate pair written the same way; 0 for a lone surrogate.
func decodeUnits(text string, i, skip int, v *decoded) int {
	r, ok := hexAt(text, i+skip, 4)
	if !ok {
		return 0
	}
	n := skip + 4
	if utf16.IsSurrogate(r) {
		j := i + n
		if j+n > len(text) || text[j:j+skip] != text[i:i+skip] {
			return 0
		}
		r2, ok := hexAt(text, j+skip, 4)
		p := utf16.DecodeRune(r, r2)
		if !ok || p == utf8.RuneError {
			return 0 // a lone surrogate stands for nothing
		}
		r, n = p, 2*n
	}
	v.emitRune(r, i, i+n)
	return n
}

// decodeBackslash decodes a backslash escape at text[i].
func decodeBackslash(text string, i int, v *decoded) int {
	if i+1 >= len(text) {
		return 0
	}
	switch c := text[i+1]; c {
	case 'u':
		if i+2 < len(text) && text[i+2] == '{' { // \u{1F511}: JavaScript, Rust, Swift
			end := strings.IndexByte(text[i+3:min(len(text), i+10)], '}')
			if end < 1 {
				return 0
			}
			r, ok := hexAt(text, i+3, end)
			if !ok || !utf8.ValidRune(r) {
				return 0
			}
			v.emitRune(r, i, i+3+end+1)
			return 3 + end + 1
		}
		return decodeUnits(text, i, 2, v)
	case 'U':
		r, ok := hexAt(text, i+2, 8)
		if !ok || !utf8.ValidRune(r) {
			return 0
		}
		v.emitRune(r, i, i+10)
		return 10
	case 'x':
		return decodeBytes(text, i, `\x`, v)
	case '"', '\\', '/', '\'':
		v.emitByte(c, i, i+2)
		return 2
	case 'b', 'f', 'n', 'r', 't':
		v.emitByte("\b\f\n\r\t"[strings.IndexByte("bfnrt", c)], i, i+2)
		return 2
	}
	return 0
}

// maxEntityName bounds a named character reference ("&CounterClockwiseContourIntegral;").
const maxEntityName = 33

// decodeEntity decodes an HTML or XML character reference at text[i].
func decodeEntity(text string, i int, v *decoded) int {
	j := i + 1
	if j < len(text) && text[j] == '#' {
		j++
		base, digits := 10, "0123456789"
		if j < len(text) && (text[j] == 'x' || text[j] == 'X') {
			base, digits = 16, "0123456789abcdefABCDEF"
			j++
		}
		start := j
		for j < len(text) && j-start < 8 && strings.IndexByte(digits, text[j]) >= 0 {
			j++
		}
		if j == start {
			return 0
		}
		var r rune
		for _, c := range []byte(text[start:j]) {
			d, _ := hexVal(c)
			r = r*rune(base) + rune(d)
		}
		if j < len(text) && text[j] == ';' {
			j++
		}
		if !utf8.ValidRune(r) || r == 0 {
			r = utf8.RuneError // as html.UnescapeString reads it
		}
		v.emitRune(r, i, j)
		return j - i
	}
	for j < len(text) && j-i <= maxEntityName && isAlnum(text[j]) {
		j++
	}
	if j == i+1 || j >= len(text) || text[j] != ';' {
		return 0
	}
	ref := text[i : j+1]
	out := html.UnescapeString(ref)
	if out == ref {
		return 0
	}
	v.emit([]byte(out), i, j+1)
	return j + 1 - i
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// findDecoded returns the spans of text whose decoded form (escapes and hex
// runs, see above) holds an occurrence, merged. With first set it stops at
// the first.
func (m *matcher) findDecoded(text string, first bool) []span {
	if len(m.byKey) == 0 || len(text) < minPatternBytes {
		return nil
	}
	var out []span
	hm := m
	if m.hex != nil {
		hm = m.hex
	}
	forEachHexRun(text, func(v *view) bool {
		out = append(out, v.original(hm.find(string(v.b), first))...)
		return !first || len(out) == 0
	})
	if first && len(out) > 0 {
		return out
	}
	// Each family on its own, then all at once; each level is decoded
	// from the one before, and its spans map back through every level.
	have := families(text)
	for _, fam := range []int{famPercent, famBackslash, famEntity, famAll} {
		if have&fam == 0 || (fam == famAll && bits.OnesCount(uint(have)) < 2) {
			continue
		}
		cur := text
		var levels []*decoded
		for range maxDecodeDepth {
			if families(cur)&fam == 0 {
				break
			}
			v, ok := decodeEscapes(cur, fam)
			if !ok {
				break
			}
			levels = append(levels, v)
			dec := unsafe.String(unsafe.SliceData(v.b), len(v.b)) // v.b is not written again
			for _, sp := range m.find(dec, first) {
				for k := len(levels) - 1; k >= 0; k-- {
					sp = levels[k].original(sp)
				}
				out = append(out, sp)
			}
			if first && len(out) > 0 {
				return out
			}
			cur = dec
		}
	}
	return mergeSpans(out)
}
