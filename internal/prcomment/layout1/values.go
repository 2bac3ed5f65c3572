package layout1

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

const (
	// InlineMax is the longest value, in characters, shown inline; longer
	// ones go in a fenced block, or are cut to this length when shortening.
	InlineMax = 80
	// BlockMax is the longest value, in characters, a fenced block shows in
	// a report whose budget is limited but names no ValueMax (a comment, a
	// check run), and in any report once it shortens values.
	BlockMax = 3000
	// shortDiffMax is the most characters a diff shows at a report level
	// that shortens values.
	shortDiffMax = 1000
)

// Shown is a value ready to print: Inline Markdown, or Block text for a
// fence of language Lang with More characters cut off.
type Shown struct {
	Inline string
	Block  string
	Lang   string
	More   int
}

// ShowValue renders a present value. Strings keep their JSON quotes inline,
// so "5" and 5, or "" and an absent value, read differently. Values longer
// than InlineMax characters, and strings of several lines, go in a block
// cut to BlockMax characters. With short, the value is always inline, cut
// to InlineMax characters. Characters that could hide or reorder text are
// shown as \uXXXX escapes.
func ShowValue(v model.Value, short bool) Shown { return showValue(v, short, BlockMax) }

// showValue is ShowValue with blocks cut to blockMax characters (0: whole).
func showValue(v model.Value, short bool, blockMax int) Shown {
	raw := bytes.TrimSpace(v.Raw)
	compact, fits := inlineForm(raw)
	if fits || (short && utf8.RuneCountInString(compact) <= InlineMax) {
		return Shown{Inline: Code(compact)}
	}
	if short {
		head, more := cutRunes(compact, InlineMax)
		return Shown{Inline: Code(head) + "… " + moreChars(more)}
	}
	s := Shown{Block: compact}
	if text, lang, ok := blockText(raw); ok {
		s.Block, s.Lang = text, lang
	}
	if blockMax > 0 {
		s.Block, s.More = cutRunes(s.Block, blockMax)
	}
	return s
}

// inlineForm is a value as one line: JSON compacted, hidden characters made
// visible. fits reports that it reads well inline: at most InlineMax
// characters, and not a string of several lines (a script, a certificate),
// which reads better as lines however short.
func inlineForm(raw []byte) (compact string, fits bool) {
	compact = string(raw)
	switch {
	case len(raw) == 0:
		return compact, true
	case raw[0] == '{' || raw[0] == '[':
		compact = compactJSON(raw)
	case raw[0] == '"' && bytes.Contains(raw, []byte(`\u00`)):
		// Go's encoder writes "<" as \u003c: show what a reviewer would type.
		var text string
		if json.Unmarshal(raw, &text) == nil {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if enc.Encode(text) == nil {
				compact = strings.TrimSuffix(buf.String(), "\n")
			}
		}
	}
	compact = visible(compact, false)
	multiline := raw[0] == '"' && hasNewlineEscape(compact)
	return compact, !multiline && utf8.RuneCountInString(compact) <= InlineMax
}

// blockText lays out a string or a JSON object or array for a block: the
// string's text, or the JSON indented, with hidden characters made visible.
// ok is false for other values, which read the same in a block as inline.
func blockText(raw []byte) (text, lang string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", "", false
	}
	switch raw[0] {
	case '"':
		text, ok := stringText(raw)
		if !ok {
			return "", "", false
		}
		return visible(text, true), "", true
	case '{', '[':
		return visible(indentJSON(raw), true), "json", true
	}
	return "", "", false
}

// stringText is the text of a JSON string as a decoder left it: most hold
// no escape and are valid UTF-8, so their text is their bytes, without
// decoding them again; the others are decoded. ok is false for what is not
// a JSON string.
func stringText(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[len(raw)-1] == '"' {
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '"') < 0 && utf8.Valid(inner) && !hasControl(inner) {
			return string(inner), true
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// hasControl reports a byte JSON does not allow unescaped in a string.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// moreChars says how much of a value was left out.
func moreChars(n int) string {
	if n == 1 {
		return "(1 more character)"
	}
	return "(" + strconv.Itoa(n) + " more characters)"
}

// cutRunes keeps the first n characters of s and counts the rest.
func cutRunes(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	i, k := 0, 0
	for i < len(s) && k < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	if i == len(s) {
		return s, 0
	}
	return s[:i], utf8.RuneCountInString(s[i:])
}

// visible replaces characters that could hide or reorder text with \uXXXX,
// so a reviewer sees that they are there. keepLines keeps newlines and tabs.
func visible(s string, keepLines bool) string {
	if printableASCII(s) || (keepLines && printableLines(s)) {
		return s
	}
	if keepLines {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case hidden(r), r == 0x2028, r == 0x2029:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// compactJSON drops the whitespace between tokens of valid JSON, which
// every Value holds (it came from a decoder). It is json.Compact without the
// validation, which costs more than the rest of a report. Most values are
// compact already: they are copied once, not byte by byte.
func compactJSON(raw []byte) string {
	var b strings.Builder
	kept := 0 // raw[kept:i] is kept and not yet written
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ', c == '\t', c == '\n', c == '\r':
			if b.Cap() == 0 {
				b.Grow(len(raw))
			}
			b.Write(raw[kept:i])
			kept = i + 1
		}
	}
	if kept == 0 {
		return string(raw)
	}
	b.Write(raw[kept:])
	return b.String()
}

// indentJSON lays valid JSON out as json.Indent(dst, raw, "", "  ") does.
func indentJSON(raw []byte) string { return indentCompact(compactJSON(raw)) }

// indentCompact is indentJSON of JSON already compacted.
func indentCompact(compact string) string {
	var b strings.Builder
	b.Grow(len(compact) * 2)
	depth := 0
	newline := func() {
		b.WriteByte('\n')
		for range depth {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch c {
		case '"':
			// A string is copied whole, up to its closing quote.
			end := i + 1
			for end < len(compact) && compact[end] != '"' {
				if compact[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end+1, len(compact))
			b.WriteString(compact[i:end])
			i = end - 1
		case '{', '[':
			b.WriteByte(c)
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				b.WriteByte(compact[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			newline()
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hasNewlineEscape reports a \n escape in a JSON string (not an escaped
// backslash followed by "n").
func hasNewlineEscape[T string | []byte](s T) bool {
	for i := 0; i < len(s)-1; i++ {
		if s[i] == '\\' {
			if s[i+1] == 'n' {
				return true
			}
			i++
		}
	}
	return false
}
