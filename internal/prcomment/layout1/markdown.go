// Reporters (frozen): turns cdkd-action's reports into GitHub Markdown. Every
// function is pure and deterministic (same report, same bytes), so a sticky
// comment is only edited when something changed and golden tests stay stable.
//
// Everything that comes from cdkd, templates or state is untrusted: it goes
// through Code, CodeHTML, Text or Fence, which guarantee it cannot close a
// <details>, start HTML, mention a user, reference an issue, embed an image,
// or break out of a code span or fence.
package layout1

import (
	"strings"
	"unicode/utf8"
)

// Code renders s as an inline code span that nothing inside s can close.
// Line breaks show as "⏎"; control and bidi characters are removed.
// Not for table cells: GFM splits cells on "|" even inside code spans, so use
// CodeHTML there.
func Code(s string) string {
	s = sanitize(s, false)
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	// CommonMark strips one space from each side when both are spaces, and a
	// backtick at either edge would merge with the delimiter: pad both.
	pad := ""
	if s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "") {
		pad = " "
	}
	return ticks + pad + s + pad + ticks
}

// CodeHTML renders s as a <code> element with every special character
// escaped: for places where Markdown is not parsed (a <summary>) or where a
// "|" would split a table cell.
func CodeHTML(s string) string {
	var b strings.Builder
	b.WriteString("<code>")
	escapeTo(&b, sanitize(s, false))
	b.WriteString("</code>")
	return b.String()
}

// Text escapes s for plain Markdown text, table cells and HTML such as a
// <summary>: HTML and Markdown syntax become character references, line breaks
// show as "⏎", control and bidi characters are removed, and words GitHub would
// turn into a mention, an issue reference or a link (@user, #123, GH-123,
// URLs) are shown as <code>, which GitHub leaves alone. Escaping "@" as
// "&#64;" would not do: GitHub decodes references before it looks for
// mentions. Surrounding spaces are dropped. Text is for inline positions:
// at the start of a line, "-" or "1." would still make a list.
func Text(s string) string {
	s = strings.Trim(sanitize(s, false), " ")
	var b strings.Builder
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != ' ' {
			continue
		}
		if tok := s[start:i]; tok != "" {
			if linkish(tok) {
				b.WriteString("<code>")
				escapeTo(&b, tok)
				b.WriteString("</code>")
			} else {
				escapeTo(&b, tok)
			}
		}
		if i < len(s) {
			b.WriteString(" ")
		}
		start = i + 1
	}
	return b.String()
}

// Fence renders s as a fenced code block whose fence (``` or ~~~, longer than
// any run of that character in s) s cannot close. lang is reduced to
// characters safe in an info string. The result has no trailing newline.
func Fence(s, lang string) string {
	var b strings.Builder
	b.Grow(len(s) + len(lang) + 10)
	writeFence(&b, s, lang, "")
	return strings.TrimSuffix(b.String(), "\n")
}

// writeFence writes a fenced block, every line prefixed by indent so that it
// stays inside a list item, and a final newline.
func writeFence(w interface{ WriteString(string) (int, error) }, s, lang, indent string) {
	s = strings.TrimSuffix(sanitize(s, true), "\n")
	fence := fenceFor(s)
	safeLang := make([]byte, 0, len(lang))
	for i := 0; i < len(lang); i++ {
		if c := lang[i]; isAlnum(c) || strings.IndexByte("+-._", c) >= 0 {
			safeLang = append(safeLang, c)
		}
	}
	w.WriteString(indent)
	w.WriteString(fence)
	w.WriteString(string(safeLang))
	w.WriteString("\n")
	switch {
	case s == "":
	case indent == "":
		w.WriteString(s)
		w.WriteString("\n")
	default:
		for line := range strings.Lines(s) {
			w.WriteString(indent)
			w.WriteString(line)
		}
		w.WriteString("\n")
	}
	w.WriteString(indent)
	w.WriteString(fence)
	w.WriteString("\n")
}

// Details renders a collapsible section. summary is HTML, not Markdown (GitHub
// does not parse Markdown there): build it with Text and CodeHTML. body is
// Markdown built with this package's helpers. The result has no trailing
// newline and needs a blank line after it.
func Details(summary string, open bool, body string) string {
	return detailsOpen(summary, open) + "\n" + strings.Trim(body, "\n") + "\n\n</details>"
}

// detailsOpen is the first line of a <details> block, newline included; a
// blank line must follow before Markdown.
func detailsOpen(summary string, open bool) string {
	tag := "<details>"
	if open {
		tag = "<details open>"
	}
	// A blank line would end the HTML block, and with it the summary.
	summary = strings.ReplaceAll(strings.ReplaceAll(summary, "\r", " "), "\n", " ")
	return tag + "<summary>" + summary + "</summary>\n"
}

// fenceFor picks the shortest fence s does not contain, backticks first.
func fenceFor(s string) string {
	bt, tl := longestRun(s, '`'), longestRun(s, '~')
	switch {
	case bt < 3:
		return "```"
	case tl < 3:
		return "~~~"
	case tl < bt:
		return strings.Repeat("~", tl+1)
	default:
		return strings.Repeat("`", bt+1)
	}
}

// longestRun is the length of the longest run of c in s. Most strings hold
// no c at all: IndexByte finds that faster than looking at each byte.
func longestRun(s string, c byte) int {
	best := 0
	for {
		i := strings.IndexByte(s, c)
		if i < 0 {
			return best
		}
		n := leadingRun(s[i:], c)
		best = max(best, n)
		s = s[i+n:]
	}
}

// linkish reports a word GitHub would turn into a mention, an issue or
// commit reference, or a link.
func linkish(tok string) bool {
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '@':
			return true
		case '#':
			if i+1 < len(tok) && isDigit(tok[i+1]) {
				return true
			}
		case ':':
			if strings.HasPrefix(tok[i:], "://") {
				return true
			}
		case 'w', 'W':
			if len(tok)-i >= 4 && strings.EqualFold(tok[i:i+4], "www.") {
				return true
			}
		case 'g', 'G':
			if len(tok)-i >= 4 && strings.EqualFold(tok[i:i+3], "gh-") && isDigit(tok[i+3]) {
				return true
			}
		}
	}
	return false
}

// escapeOf maps the ASCII characters that mean something to Markdown or HTML
// to character references, which both treat as literal text.
func escapeOf(c byte) string {
	switch c {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '`':
		return "&#96;"
	case '*':
		return "&#42;"
	case '_':
		return "&#95;"
	case '[':
		return "&#91;"
	case ']':
		return "&#93;"
	case '!':
		return "&#33;"
	case '#':
		return "&#35;"
	case '|':
		return "&#124;"
	case '\\':
		return "&#92;"
	case '~':
		return "&#126;"
	case '$':
		return "&#36;"
	}
	return ""
}

func escapeTo(w *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if ref := escapeOf(s[i]); ref != "" {
			w.WriteString(s[last:i])
			w.WriteString(ref)
			last = i + 1
		}
	}
	w.WriteString(s[last:])
}

// hidden reports characters that must never reach a report: C0 and C1
// controls, DEL, bidi embeddings, overrides, isolates and marks, and the BOM.
// They can hide or reorder what a reviewer sees.
func hidden(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff:
		return true
	}
	return false
}

// sanitize removes ANSI escape sequences and hidden characters and makes
// invalid UTF-8 visible as U+FFFD. With keepLines, line breaks become "\n"
// and tabs stay; without, line breaks become "⏎" and tabs a space.
func sanitize(s string, keepLines bool) string {
	if printableASCII(s) || (keepLines && printableLines(s)) {
		return s
	}
	newline := "⏎"
	if keepLines {
		newline = "\n"
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			b.WriteString(newline)
		case r == '\n', r == 0x2028, r == 0x2029:
			b.WriteString(newline)
		case r == '\t':
			if keepLines {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		case r == 0x1b:
			size = ansiLen(s[i:])
		case hidden(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// ansiLen is the length of the escape sequence at the start of s (which
// starts with ESC): CSI (colours), OSC (titles, links) or a two-byte escape.
func ansiLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
			if s[i] < 0x20 || s[i] > 0x7e {
				return i
			}
		}
		return len(s)
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			if s[i] == '\n' {
				return i
			}
		}
		return len(s)
	}
	if s[1] < 0x20 || s[1] >= utf8.RuneSelf {
		return 1
	}
	return 2
}

// printableASCII reports that s holds only printable ASCII characters:
// nothing that sanitize or visible would change.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// printableLines reports that s holds only printable ASCII characters,
// newlines and tabs: nothing that sanitize or visible would change when
// they keep lines.
func printableLines(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
