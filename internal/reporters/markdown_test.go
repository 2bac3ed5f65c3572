package reporters

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
)

func TestCode(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "Queue4A7E3555", want: "`Queue4A7E3555`"},
		{name: "empty", in: "", want: "` `"},
		{name: "backtick inside", in: "a`b", want: "``a`b``"},
		{name: "backtick run inside", in: "a``b", want: "```a``b```"},
		{name: "longest run last", in: "a`b``c", want: "```a`b``c```"},
		{name: "longest run first", in: "a```b`c``", want: "```` a```b`c`` ````"},
		{name: "starts with backtick", in: "`a", want: "`` `a ``"},
		{name: "ends with backtick", in: "a`", want: "`` a` ``"},
		{name: "spaces both sides kept", in: " a ", want: "`  a  `"},
		{name: "only spaces", in: "  ", want: "`  `"},
		{name: "fence inside", in: "```", want: "```` ``` ````"},
		{name: "newlines visible", in: "a\nb\r\nc\rd", want: "`a⏎b⏎c⏎d`"},
		{name: "tab", in: "a\tb", want: "`a b`"},
		{name: "bidi and controls removed", in: "a\u202eb\u2066c\u200fd\x00e\x1ff\u0085g\ufeffh", want: "`abcdefgh`"},
		{name: "ansi colour removed", in: "\x1b[31mred\x1b[0m", want: "`red`"},
		{name: "invalid utf-8 visible", in: "a\xffb", want: "`a\ufffdb`"},
		{name: "html stays literal", in: "</details><img src=x>", want: "`</details><img src=x>`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, Code(tc.in), tc.want)
		})
	}
}

func TestCodeHTML(t *testing.T) {
	assert.Equal(t, CodeHTML("a|b <img> & `x` @octocat\n*"), "<code>a&#124;b &lt;img&gt; &amp; &#96;x&#96; @octocat⏎&#42;</code>")
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "plain", in: "StackA", want: "StackA"},
		{name: "html", in: "</details><img src=x>", want: "&lt;/details&gt;&lt;img src=x&gt;"},
		{name: "entity stays literal", in: "&#64;octocat &lt;", want: "<code>&amp;&#35;64;octocat</code> &amp;lt;"},
		{name: "emphasis and links", in: "*a* _b_ [c](d) ![e](f) ~~g~~ $h$", want: "&#42;a&#42; &#95;b&#95; &#91;c&#93;(d) &#33;&#91;e&#93;(f) &#126;&#126;g&#126;&#126; &#36;h&#36;"},
		{name: "table and code", in: "a|b `c` \\d", want: "a&#124;b &#96;c&#96; &#92;d"},
		{name: "mention", in: "ping @octocat now", want: "ping <code>@octocat</code> now"},
		{name: "team mention", in: "@org/team", want: "<code>@org/team</code>"},
		{name: "issue reference", in: "fixes #123 and o/r#4", want: "fixes <code>&#35;123</code> and <code>o/r&#35;4</code>"},
		{name: "hash without number", in: "C# #x", want: "C&#35; &#35;x"},
		{name: "GH reference", in: "see GH-12", want: "see <code>GH-12</code>"},
		{name: "url", in: "https://example.com/x www.example.com", want: "<code>https://example.com/x</code> <code>www.example.com</code>"},
		{name: "line breaks", in: "a\nb\r\nc", want: "a⏎b⏎c"},
		{name: "bidi removed", in: "ab\u202ecd\u2067", want: "abcd"},
		{name: "trimmed", in: "   indented  ", want: "indented"},
		{name: "heading", in: "# title", want: "&#35; title"},
		{name: "quote", in: "> quote", want: "&gt; quote"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, Text(tc.in), tc.want)
		})
	}
}

func TestFence(t *testing.T) {
	tests := []struct {
		name, in, lang, want string
	}{
		{name: "plain", in: "a\nb\n", lang: "json", want: "```json\na\nb\n```"},
		{name: "empty", in: "", lang: "", want: "```\n```"},
		{name: "contains backtick fence", in: "x\n```\ny", lang: "", want: "~~~\nx\n```\ny\n~~~"},
		{name: "contains both", in: "```\n~~~~~", lang: "", want: "````\n```\n~~~~~\n````"},
		{name: "contains both, tildes shorter", in: "`````\n~~~", lang: "", want: "~~~~\n`````\n~~~\n~~~~"},
		{name: "lang sanitised", in: "a", lang: "js`on <x>", want: "```jsonx\na\n```"},
		{name: "crlf and controls", in: "a\r\nb\x07\u202ec\tz", lang: "", want: "```\na\nb" + "c\tz\n```"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, Fence(tc.in, tc.lang), tc.want)
		})
	}
}

func TestDetails(t *testing.T) {
	assert.Equal(t, Details("<b>StackA</b>\nx", true, "\nbody\n"),
		"<details open><summary><b>StackA</b> x</summary>\n\nbody\n\n</details>")
	assert.Equal(t, Details("s", false, "b"), "<details><summary>s</summary>\n\nb\n\n</details>")
}

func TestBudgetFits(t *testing.T) {
	tests := []struct {
		name string
		b    Budget
		s    string
		want bool
	}{
		{name: "unlimited", b: Unlimited, s: strings.Repeat("x", 1<<20), want: true},
		{name: "bytes over", b: Budget{MaxBytes: 2}, s: "äb", want: false},
		{name: "bytes within", b: Budget{MaxBytes: 3}, s: "äb", want: true},
		{name: "chars count runes", b: Budget{MaxChars: 2}, s: "äb", want: true},
		{name: "chars over", b: Budget{MaxChars: 2}, s: "äbc", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.b.Fits(tc.s), tc.want)
		})
	}
}

func TestTruncateClosesWhatItOpened(t *testing.T) {
	doc := "### title\n\n" +
		Details("<b>outer</b>", true, "text\n\n"+
			Details("inner", false, "- item\n  <details><summary>value</summary>\n\n"+
				indentLines(Fence(strings.Repeat("line äöü\n", 40), "json"), "  ")+"\n\n  </details>\n")+
			"\n\nafter") +
		"\n\nend\n"
	tail := "✂️ cut"
	for _, b := range []Budget{{MaxBytes: len(doc) - 1}, {MaxChars: utf8.RuneCountInString(doc) - 1}} {
		for limit := 1; limit < len(doc); limit += 7 {
			if b.MaxBytes > 0 {
				b.MaxBytes = limit
			} else {
				b.MaxChars = limit
			}
			got := Truncate(doc, b, tail)
			if b.Fits(doc) {
				assert.Equal(t, got, doc)
				continue
			}
			assert.Assert(t, b.Fits(got), "limit %d: %d bytes", limit, len(got))
			assert.Assert(t, utf8.ValidString(got), "limit %d", limit)
			if b.Fits(tail + "\n\n</details>\n\n</details>\n```\n") {
				assert.Assert(t, strings.HasSuffix(got, tail+"\n"), "limit %d: %q", limit, got)
			}
			if strings.HasSuffix(got, tail+"\n") {
				assertBalanced(t, got)
			}
		}
	}
	assert.Equal(t, Truncate(doc, Unlimited, tail), doc)
}

// assertBalanced checks that every fence is closed and every <details> too.
func assertBalanced(t *testing.T, md string) {
	t.Helper()
	fence, depth := "", 0
	for line := range strings.Lines(md) {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if n := leadingRun(trimmed, fence[0]); n == len(trimmed) && n >= len(fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:leadingRun(trimmed, trimmed[0])]
		case strings.HasPrefix(trimmed, "<details"):
			depth++
		case strings.HasPrefix(trimmed, "</details>"):
			depth--
		}
		assert.Assert(t, depth >= 0, "closed a <details> that was not open:\n%s", md)
	}
	assert.Equal(t, fence, "", "fence left open:\n%s", md)
	assert.Equal(t, depth, 0, "<details> left open:\n%s", md)
}

var (
	ourTag    = regexp.MustCompile(`^<(/?(details|summary|b|code|sub)>|details open>)`)
	reference = regexp.MustCompile(`#\d|(?i)gh-\d`)
)

// assertSafe checks that nothing untrusted escaped its code span, fence or
// escaping: outside code, the only HTML is the reporter's own, and there is
// no mention, issue reference, image or hidden character.
func assertSafe(t *testing.T, md string) {
	t.Helper()
	for _, r := range md {
		assert.Assert(t, r == '\n' || !hidden(r), "hidden character %U in:\n%s", r, md)
	}
	assertBalanced(t, md)
	fence := ""
	for line := range strings.Lines(md) {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if n := leadingRun(trimmed, fence[0]); n == len(trimmed) && n >= len(fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:leadingRun(trimmed, trimmed[0])]
			continue
		}
		rest := withoutCode(t, trimmed)
		for i := strings.IndexByte(rest, '<'); i >= 0; i = strings.IndexByte(rest, '<') {
			assert.Assert(t, ourTag.MatchString(rest[i:]), "foreign HTML in line %q", line)
			rest = rest[i+1:]
		}
		rest = withoutCode(t, trimmed)
		assert.Assert(t, !strings.Contains(rest, "!["), "image in line %q", line)
		// GitHub looks for mentions and references after decoding.
		rest = html.UnescapeString(rest)
		assert.Assert(t, !strings.Contains(rest, "@"), "possible mention in line %q", line)
		assert.Assert(t, !reference.MatchString(rest), "possible reference in line %q", line)
	}
}

// withoutCode drops <code> elements and code spans from a line, failing on
// a code span that is not closed.
func withoutCode(t *testing.T, line string) string {
	t.Helper()
	for {
		i := strings.Index(line, "<code>")
		if i < 0 {
			break
		}
		j := strings.Index(line[i:], "</code>")
		assert.Assert(t, j >= 0, "unclosed <code> in %q", line)
		line = line[:i] + line[i+j+len("</code>"):]
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := leadingRun(line[i:], '`')
		closed := false
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := leadingRun(line[j:], '`')
			if m == n {
				i, closed = j+m, true
				break
			}
			j += m
		}
		assert.Assert(t, closed, "unclosed code span in %q", line)
	}
	return b.String()
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
