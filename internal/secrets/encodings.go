package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/url"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// encodings returns v and every form of it that Redact looks for. It is a
// superset of what the Actions runner masks (src/Sdk/DTLogging/Logging/
// ValueEncoders.cs in github.com/actions/runner: Base64StringEscape and
// Shift1/Shift2, CommandLineArgumentEscape, ExpressionStringEscape,
// JsonStringEscape, UriDataEscape, XmlDataEscape, TrimDoubleQuotes), plus the
// forms our own Go code and the tools around it produce. Duplicates and forms
// shorter than minPatternBytes are dropped by the matcher.
func encodings(v string) []string {
	out := []string{v}
	out = append(out, base64Forms(v)...)
	out = append(out, jsonForms(v)...)
	out = append(out, urlForms(v)...)
	out = append(out, markupForms(v)...)
	out = append(out, quotingForms(v)...)
	out = append(out, reportForms(v)...)
	return out
}

// reportForms covers v as the reporters render untrusted text in Markdown
// (reporters.Text, Code and CodeHTML): made one line (a tab as a space, a
// line break as "⏎"), control and bidi characters removed, and Markdown and
// HTML syntax as character references. reporters' tests pin this to their
// own escaping (TestReportFormsMatchTheReporters).
func reportForms(v string) []string {
	inline := reportInline(v)
	out := []string{inline, reportEscape(inline)}
	if inline != v {
		out = append(out, reportEscape(v))
	}
	return out
}

// reportInline is reporters' sanitize without keepLines.
func reportInline(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r':
			if i+1 < len(v) && v[i+1] == '\n' {
				size = 2
			}
			b.WriteString("⏎")
		case r == '\n', r == 0x2028, r == 0x2029:
			b.WriteString("⏎")
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
			r == 0x200e, r == 0x200f, r == 0x061c, r == 0xfeff:
			// hidden: removed
		default:
			b.WriteString(v[i : i+size])
		}
		i += size
	}
	return b.String()
}

// reportEscaper is reporters' escapeOf: & < > named, the other characters
// that mean something to Markdown or HTML as decimal references.
var reportEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "`", "&#96;", "*", "&#42;",
	"_", "&#95;", "[", "&#91;", "]", "&#93;", "!", "&#33;", "#", "&#35;", "|", "&#124;", "\\", "&#92;",
	"~", "&#126;", "$", "&#36;")

func reportEscape(v string) string { return reportEscaper.Replace(v) }

// base64Forms covers a value base64-encoded inside a larger blob, as in
// base64("user:" + password + "\n"), in both the standard and the URL-safe
// alphabet:
//
//   - the exact encodings of v and of v with its first 1 and 2 bytes dropped
//     (the runner's Base64StringEscape, Shift1 and Shift2), padded and with the
//     padding trimmed (the runner's ADR 0297, and unpadded encoders);
//   - for each of the three alignments of v in the encoded stream, the run of
//     base64 digits whose six bits all come from v. Those digits do not
//     depend on what precedes or follows v, so they match wherever v sits.
//     This is the runner's "trim the last non-padding character" rule (ADR
//     0297) generalised to the start: the runner's shifted forms give away
//     the digits that straddle the first two bytes, these do not.
func base64Forms(v string) []string {
	b := []byte(v)
	n := len(b)
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for shift := 0; shift <= 2 && shift < n; shift++ {
			e := enc.EncodeToString(b[shift:])
			out = append(out, e, strings.TrimRight(e, "="))
		}
		for align := 0; align <= 2; align++ {
			buf := make([]byte, align+n)
			copy(buf[align:], b)
			e := enc.EncodeToString(buf)
			from := (8*align + 5) / 6 // first digit starting at or after v's first bit
			to := 8 * (align + n) / 6 // digits ending at or before v's last bit
			if to > from {
				out = append(out, e[from:to])
			}
		}
	}
	return out
}

// jsonForms covers v as the inside of a JSON string:
//   - Go's encoding/json with and without HTML escaping (\u003c, \u0026...);
//   - Newtonsoft's JsonConvert.ToString (the runner's JsonStringEscape), which
//     also escapes U+0085;
//   - ASCII-only escaping (\uXXXX for every non-ASCII rune, as Python's
//     json.dumps does by default);
//   - "/" escaped as "\/" (PHP and some Java encoders);
//   - a JSON document embedded as a string in another JSON document (a
//     policy or template carried as a string property): escaped twice.
func jsonForms(v string) []string {
	goPlain := goJSON(v, false)
	goHTML := goJSON(v, true)
	return []string{
		goPlain,
		goHTML,
		newtonsoftJSON(v),
		asciiJSON(v),
		strings.ReplaceAll(goPlain, "/", `\/`),
		goJSON(goPlain, false),
		goJSON(goPlain, true),
		goJSON(goHTML, false),
		goJSON(goHTML, true),
	}
}

// goJSON returns v as encoding/json writes it inside a string, without the
// quotes.
func goJSON(v string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return v // cannot happen for a string
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	return s[1 : len(s)-1]
}

// newtonsoftJSON mirrors Newtonsoft.Json's default string escaping, which
// the runner's JsonStringEscape uses: the short escapes, \u00XX (lower-case
// hex) for other control characters, and \u0085, \u2028, \u2029.
func newtonsoftJSON(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteByte(v[i])
		case r < 0x20 || r == '"' || r == '\\' || r == 0x85 || r == 0x2028 || r == 0x2029:
			b.WriteString(jsonEscapeRune(r))
		default:
			b.WriteString(v[i : i+size])
		}
		i += size
	}
	return b.String()
}

// asciiJSON escapes like Python's json.dumps(ensure_ascii=True): every
// non-ASCII rune as \uXXXX (surrogate pairs above U+FFFF).
func asciiJSON(v string) string {
	var b strings.Builder
	for _, r := range v {
		switch {
		case r < 0x20 || r == '"' || r == '\\':
			b.WriteString(jsonEscapeRune(r))
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func jsonEscapeRune(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// urlForms covers v percent-encoded: url.QueryEscape (space as "+"),
// url.PathEscape, .NET's Uri.EscapeDataString (the runner's UriDataEscape:
// everything but A-Z a-z 0-9 -._~, space as %20) and JavaScript's
// encodeURIComponent (which also keeps !'()*).
func urlForms(v string) []string {
	return []string{
		url.QueryEscape(v),
		url.PathEscape(v),
		percentEncode(v, "-_.~"),
		percentEncode(v, "-_.~!'()*"),
	}
}

// percentEncode escapes every byte but ASCII letters, digits and keep, with
// upper-case hex.
func percentEncode(v, keep string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// markupForms covers v inside HTML or XML: & < > as entities and each
// spelling of the quote entities (named, decimal, hex, or left as is), which
// includes html.EscapeString and .NET's SecurityElement.Escape (the runner's
// XmlDataEscape); and encoding/xml's EscapeText, which also escapes tab, CR
// and LF and turns invalid UTF-8 and disallowed control characters into
// U+FFFD.
func markupForms(v string) []string {
	var out []string
	// EscapeText also replaces invalid UTF-8 and the control characters XML
	// does not allow with U+FFFD.
	var buf bytes.Buffer
	if err := xml.EscapeText(&buf, []byte(v)); err == nil {
		out = append(out, buf.String())
	}
	if !strings.ContainsAny(v, "&<>\"'") {
		return out
	}
	out = append(out, html.EscapeString(v))
	for _, quot := range []string{`"`, "&quot;", "&#34;", "&#x22;"} {
		for _, apos := range []string{"'", "&apos;", "&#39;", "&#x27;"} {
			r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, quot, "'", apos)
			out = append(out, r.Replace(v))
		}
	}
	return out
}

// markdownPunct is the ASCII punctuation CommonMark lets a backslash escape.
const markdownPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// quotingForms covers v quoted for a shell or a template and escaped for
// Markdown:
//   - `"` as `\"` (the runner's CommandLineArgumentEscape);
//   - a single quote doubled (the runner's ExpressionStringEscape), or
//     closed, backslash-escaped and reopened (POSIX shell single quotes);
//   - v without its surrounding double quotes when it is longer than 8
//     bytes (the runner's TrimDoubleQuotes);
//   - every ASCII punctuation character backslash-escaped (a Markdown
//     escaper), and "|" escaped for a Markdown table cell as `\|` or &#124;.
func quotingForms(v string) []string {
	out := []string{
		strings.ReplaceAll(v, `"`, `\"`),
		strings.ReplaceAll(v, "'", "''"),
		strings.ReplaceAll(v, "'", `'\''`),
		strings.ReplaceAll(v, "|", `\|`),
		strings.ReplaceAll(v, "|", "&#124;"),
	}
	if len(v) > 8 && v[0] == '"' && v[len(v)-1] == '"' {
		out = append(out, v[1:len(v)-1])
	}
	if strings.ContainsAny(v, markdownPunct) {
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if strings.IndexByte(markdownPunct, v[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(v[i])
		}
		out = append(out, b.String())
	}
	return out
}
