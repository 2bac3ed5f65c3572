package secrets

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"unicode/utf8"
)

// Secrets inside encoded blobs. A secret travels inside data an encoder
// wrapped whole, where no encoding of the secret alone is a substring:
// PowerShell's -EncodedCommand (base64 of UTF-16LE), a Kubernetes Secret
// manifest in UserData (base64 of text holding base64), cloud-init's
// `encoding: gz+b64` (gzip or zlib, then base64), base32. So every run of
// the base64 alphabet in the text (wrapped across lines or not, see
// parseBlock) is decoded, and what it decodes to is searched like text:
//
//   - base64, both alphabets at once ('+' '/' and '-' '_'), padded or not,
//     from each of the run's first four characters (any alignment: a run
//     may start with letters that are not part of the blob);
//   - base32 (RFC 4648, upper case), from each of its first eight
//     characters, for the upper-case runs of at least minBlobRun;
//   - what those decode to, when it holds a gzip stream (or starts a zlib
//     one), is inflated; when a quarter or more of its bytes are zero, it is read as
//     UTF-16LE at both byte offsets;
//   - the text found so is searched for every value and encoding Redact
//     knows, and for blobs again, down to maxBlobDepth encodings deep.
//
// A run whose decoded text holds a secret is replaced whole ('=' ends a
// run: "password=<blob>" keeps "password="). Decoded bytes are random at a
// wrong alignment, so an occurrence counts only where its neighbours are
// text (blobContextOK): a secret of four characters would otherwise turn
// up by chance in the noise of megabytes of identifiers decoded as base64.
//
// Bounds, by construction, so that redaction stays linear in the text:
// runs shorter than minBlobRun characters are not decoded (an encoding of
// a value alone is matched as a pattern already); a run longer than
// maxBlobRun, a stream that inflates past maxInflate, and the streams
// past a redaction's inflate budget are not searched and are replaced
// whole (fail closed: what could not be read is not shown).

const (
	// minBlobRun is the shortest run of the alphabet decoded: 12 bytes.
	minBlobRun = 16
	// maxBlobRun is the longest run decoded; a longer one is hidden whole.
	maxBlobRun = 1 << 20
	// maxBlobDepth is how many encodings deep a blob is decoded
	// (base64 → gzip → text holding base64 → UTF-16LE is two).
	maxBlobDepth = 3
	// maxInflate bounds what one compressed stream inflates to.
	maxInflate = 8 << 20
	// inflateBudgetPerByte and minInflateBudget bound what one redaction
	// inflates in all: a text of gzip bombs costs a bounded multiple of
	// its size, then its remaining streams are hidden unread.
	inflateBudgetPerByte = 64
	minInflateBudget     = 32 << 20
	// maxInflateTries bounds the compressed-stream headers tried in one
	// decoded buffer.
	maxInflateTries = 8
)

// blobScan is one search of a text for blobs that hold a secret.
type blobScan struct {
	m      *matcher
	budget int // bytes still to inflate
	// besideStars: only the runs of the text that touch a '*' (a
	// Replacement just inserted may have cut them from a longer run).
	besideStars bool
}

// findBlobs returns the spans of text (per line of a wrapped run) of each
// run whose decoded form holds an occurrence, merged. With first set it
// stops at the first.
func (m *matcher) findBlobs(text string, first bool) []span {
	return m.blobSpans(text, first, false)
}

// blobSpans is findBlobs, of only the runs beside a '*' when besideStars
// is set.
func (m *matcher) blobSpans(text string, first, besideStars bool) []span {
	if len(m.byKey) == 0 || len(text) < minBlobRun {
		return nil
	}
	sc := &blobScan{m: m, budget: max(minInflateBudget, inflateBudgetPerByte*len(text)), besideStars: besideStars}
	var out []span
	sc.forEachRun(text, 1, func(ws []word, sp span) bool {
		out = appendRunPieces(out, ws, sp)
		return !first
	})
	return mergeSpans(out)
}

// replaceBlobs replaces each run of text that findBlobs finds; with
// besideStars, of the runs beside a '*' only.
func (m *matcher) replaceBlobs(text string, besideStars bool) string {
	if spans := m.blobSpans(text, false, besideStars); len(spans) > 0 {
		return m.replace(text, spans)
	}
	return text
}

// forEachRun calls fn with each run of text (its words and the span of
// their joined text) that holds a secret at the given depth; fn returns
// false to stop. It returns whether fn was called.
func (sc *blobScan) forEachRun(text string, depth int, fn func([]word, span) bool) bool {
	var block []word
	var joined []byte
	found := false
	for i := 0; i < len(text); {
		if byteClass[text[i]] != clsWord {
			i++
			continue
		}
		var end int
		block, end = parseBlock(text, i, block[:0])
		i = max(end, i+1)
		n := 0
		for _, w := range block {
			n += w.end - w.start
		}
		if n < minBlobRun {
			continue
		}
		if sc.besideStars && depth == 1 {
			first, last := block[0], block[len(block)-1]
			if !(first.start > 0 && text[first.start-1] == '*' || last.end < len(text) && text[last.end] == '*') {
				continue
			}
		}
		if n > maxBlobRun {
			found = true
			if !fn(block, span{0, n}) {
				return true
			}
			continue
		}
		var spans []span
		if len(block) == 1 {
			spans = sc.holdingRuns(text[block[0].start:block[0].end], depth)
		} else {
			joined = joined[:0]
			for _, w := range block {
				joined = append(joined, text[w.start:w.end]...)
			}
			// The last word of a wrapped run may be the blob's last
			// line or the next line's first word ("after"): without it
			// first.
			last := block[len(block)-1]
			spans = sc.holdingRuns(string(joined[:len(joined)-(last.end-last.start)]), depth)
			if len(spans) == 0 {
				spans = sc.holdingRuns(string(joined), depth)
			}
		}
		for _, sp := range spans {
			found = true
			if !fn(block, sp) {
				return true
			}
		}
	}
	return found
}

// holdingRuns returns the spans of joined (a run of the base64 alphabet,
// lines joined) that decode to text holding a secret: its pieces between
// '=' as base64, and its upper-case pieces as base32.
func (sc *blobScan) holdingRuns(joined string, depth int) []span {
	var out []span
	for start := 0; start < len(joined); {
		end := start
		for end < len(joined) && joined[end] != '=' {
			end++
		}
		pad := end
		for pad < len(joined) && joined[pad] == '=' {
			pad++
		}
		if piece := joined[start:end]; len(piece) >= minBlobRun {
			if sc.base64Holds(piece, depth) {
				out = append(out, span{start, pad})
			} else {
				for _, sp := range sc.base32Holding(piece, depth) {
					if start+sp.end == end {
						sp.end = pad - start
					}
					out = append(out, span{start + sp.start, start + sp.end})
				}
			}
		}
		start = pad
	}
	return out
}

func (sc *blobScan) base64Holds(piece string, depth int) bool {
	for off := range 4 {
		if len(piece)-off < minBlobRun {
			break
		}
		// Most runs are identifiers, and decode to noise at every
		// alignment: their head says so before the whole is decoded.
		var head [headBytes]byte
		if !plausibleHead(decodeBase64Lenient(head[:0], piece[off:min(len(piece), off+headBytes*4/3)])) {
			continue
		}
		if sc.bytesHold(decodeBase64Lenient(nil, piece[off:]), depth) {
			return true
		}
	}
	return false
}

// headBytes is how much of a decoded blob plausibleHead reads.
const headBytes = 18

// plausibleHead reports whether b, the start of what a run decodes to,
// may be text, UTF-16 (it holds a zero byte) or start a compressed stream.
func plausibleHead(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 || mostlyText(b) {
		return true
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0x1f && b[i+1] == 0x8b || zlibHeader(b[i], b[i+1]) {
			return true
		}
	}
	return false
}

// zlibHeader reports whether c, f are a zlib stream's first two bytes
// (deflate, a window of at most 32 KiB, no preset dictionary).
func zlibHeader(c, f byte) bool {
	return c&0x0f == 8 && c>>4 <= 7 && (uint16(c)<<8|uint16(f))%31 == 0 && f&0x20 == 0
}

// base32Holding returns the spans of piece, upper-case runs of the base32
// alphabet, whose base32 decodes to text holding a secret.
func (sc *blobScan) base32Holding(piece string, depth int) []span {
	var out []span
	var buf []byte
	for i := 0; i < len(piece); {
		if base32Val[piece[i]] < 0 {
			i++
			continue
		}
		j := i
		for j < len(piece) && base32Val[piece[j]] >= 0 {
			j++
		}
		for off := 0; off < 8 && j-i-off >= minBlobRun; off++ {
			var head [headBytes]byte
			if !plausibleHead(decodeBase32(head[:0], piece[i+off:min(j, i+off+headBytes*8/5)])) {
				continue
			}
			buf = decodeBase32(buf[:0], piece[i+off:j])
			if sc.bytesHold(buf, depth) {
				out = append(out, span{i, j})
				break
			}
		}
		i = j
	}
	return out
}

// bytesHold reports whether b, what a blob decoded to, holds a secret:
// as text, inflated, or read as UTF-16LE.
func (sc *blobScan) bytesHold(b []byte, depth int) bool {
	return sc.compressedHolds(b, depth) || sc.plainHolds(b, depth)
}

// plainHolds reports whether b, decoded or inflated, holds a secret as
// text or read as UTF-16LE.
func (sc *blobScan) plainHolds(b []byte, depth int) bool {
	if zeros := bytes.Count(b, []byte{0}); zeros > 0 && 4*zeros >= len(b) {
		for parity := range 2 {
			if u := utf16LE(b[parity:]); sc.textHolds(u, depth) {
				return true
			}
		}
		return false
	}
	return sc.textHolds(b, depth)
}

// compressedHolds inflates each gzip or zlib stream b holds (a gzip header
// at any byte, a zlib one in the head: a run may start with characters
// that are not the blob's). It
// reports whether a stream's text holds a secret or a stream could not be
// read whole (fail closed).
func (sc *blobScan) compressedHolds(b []byte, depth int) bool {
	tries := 0
	for i := 0; i+2 < len(b) && tries < maxInflateTries; i++ {
		var open func(io.Reader) (io.Reader, error)
		switch {
		case b[i] == 0x1f && b[i+1] == 0x8b && b[i+2] == 8:
			open = func(r io.Reader) (io.Reader, error) {
				z, err := gzip.NewReader(r)
				if z != nil {
					z.Multistream(false)
				}
				return z, err
			}
		case i < headBytes && zlibHeader(b[i], b[i+1]):
			// Two bytes that text holds by chance ("hC"): only in
			// the head, where plausibleHead looked for it.
			open = func(r io.Reader) (io.Reader, error) { return zlib.NewReader(r) }
		default:
			continue
		}
		tries++
		if sc.budget <= 0 {
			return true // past the budget: hidden unread
		}
		out, whole, ok := inflate(open, b[i:], min(maxInflate, sc.budget))
		if !ok {
			continue // not a stream after all
		}
		sc.budget -= len(out)
		if !whole || sc.plainHolds(out, depth) {
			return true
		}
	}
	return false
}

// inflate reads the stream at b through open, up to limit bytes. ok is
// false when b holds no readable stream; whole is false when it inflates
// past limit.
func inflate(open func(io.Reader) (io.Reader, error), b []byte, limit int) (out []byte, whole, ok bool) {
	r, err := open(bytes.NewReader(b))
	if err != nil {
		return nil, false, false
	}
	// A stream cut short or failing its checksum still shows what it
	// held; garbage that merely started like a header shows nothing.
	out, _ = io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if len(out) > limit {
		return out[:limit], false, true
	}
	return out, true, len(out) > 0
}

// textHolds reports whether b, decoded text, holds an occurrence among
// text (blobContextOK), or a blob that does, maxBlobDepth deep.
func (sc *blobScan) textHolds(b []byte, depth int) bool {
	if len(b) < minPatternBytes || !mostlyText(b) {
		return false
	}
	s := string(b)
	for _, sp := range sc.m.spans(s, false) {
		if blobContextOK(s, sp) {
			return true
		}
	}
	if depth >= maxBlobDepth {
		return false
	}
	return sc.forEachRun(s, depth+1, func([]word, span) bool { return false })
}

// mostlyText reports whether at most a quarter of b is control bytes or
// invalid UTF-8: what a wrong alignment decodes to is noise, and is not
// searched.
func mostlyText(b []byte) bool {
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		i += n
	}
	return 4*bad <= len(b)
}

// blobContextOK reports whether the four bytes either side of sp in s
// (those there are) are text: printable, a line break or tab, or part of
// a valid UTF-8 character.
func blobContextOK(s string, sp span) bool {
	ok := func(from, to int) bool {
		for i := from; i < to; {
			c := s[i]
			if c < utf8.RuneSelf {
				if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
					return false
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 && i+3 < to && i > from+2 {
				return false // a character cut by the window's edge is no evidence
			}
			i += n
		}
		return true
	}
	return ok(max(0, sp.start-4), sp.start) && ok(sp.end, min(len(s), sp.end+4))
}

// appendRunPieces appends the parts of ws (a run's words) that sp, a span
// of their joined text, covers: one span per line of a wrapped run.
func appendRunPieces(out []span, ws []word, sp span) []span {
	at := 0
	for _, w := range ws {
		n := w.end - w.start
		if from, to := max(sp.start, at), min(sp.end, at+n); from < to {
			out = append(out, span{w.start + from - at, w.start + to - at})
		}
		at += n
		if at >= sp.end {
			break
		}
	}
	return out
}
