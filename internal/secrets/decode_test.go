package secrets

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"gotest.tools/v3/assert"
)

// Spellings no encoder in encodings.go writes, made here by hand so that
// the test does not depend on any encoder: each must be found by decoding.
func percentLower(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&b, "%%%02x", v[i])
	}
	return b.String()
}

func everyRuneU(v string, upper bool) string {
	var b strings.Builder
	for _, r := range v {
		units := []rune{r}
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			units = []rune{r1, r2}
		}
		for _, u := range units {
			if upper {
				fmt.Fprintf(&b, `\u%04X`, u)
			} else {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		}
	}
	return b.String()
}

func entities(v, format string) string {
	var b strings.Builder
	for _, r := range v {
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

func hexOf(v, format string) string { return fmt.Sprintf(format, v) }

func backslashX(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		fmt.Fprintf(&b, `\x%02x`, v[i])
	}
	return b.String()
}

// TestRedactDecodesEscapes: a secret spelled in escapes no listed encoder
// writes is found by what the escapes decode to, and the whole escaped
// span is replaced, the text around it kept.
func TestRedactDecodesEscapes(t *testing.T) {
	values := map[string]string{
		"issue's password": "ENC0DED-pw/Secret+Value=77?x",
		"unicode":          unicodeV,
		"special":          special,
	}
	forms := map[string]func(string) string{
		"percent, lower-case hex":    percentLower,
		"percent, upper-case hex":    func(v string) string { return strings.ToUpper(percentLower(v)) },
		"every rune \\u, lower-case": func(v string) string { return everyRuneU(v, false) },
		"every rune \\u, upper-case": func(v string) string { return everyRuneU(v, true) },
		"hex entities":               func(v string) string { return entities(v, "&#x%X;") },
		"hex entities, lower-case x": func(v string) string { return entities(v, "&#x%x;") },
		"decimal entities":           func(v string) string { return entities(v, "&#%d;") },
		"hex, lower-case":            func(v string) string { return hexOf(v, "%x") },
		"hex, upper-case":            func(v string) string { return hexOf(v, "%X") },
		"\\x escapes":                backslashX,
		"percent escaped twice":      func(v string) string { return strings.ReplaceAll(percentLower(v), "%", "%25") },
		"half the runes as entities": halfEntities,
		"named entities for & < > \"'": func(v string) string {
			return strings.NewReplacer("/", "&sol;", "+", "&plus;", "=", "&equals;", "?", "&quest;").Replace(v)
		},
	}
	for vname, v := range values {
		s := newSet(t, v)
		for fname, enc := range forms {
			t.Run(vname+"/"+fname, func(t *testing.T) {
				e := enc(v)
				for _, text := range []string{"before " + e + " after", e, "x" + e, "id:" + e + "\n"} {
					out := s.Redact(text)
					assert.Assert(t, !strings.Contains(out, e), "%q survives in %q", e, out)
					assert.Equal(t, out, strings.Replace(text, e, Replacement, 1))
					assert.Assert(t, !s.Contains(out))
					assert.Assert(t, s.Contains(text))
					assert.Equal(t, s.Redact(out), out, "idempotent")
				}
			})
		}
	}
}

func halfEntities(v string) string {
	var b strings.Builder
	for i, r := range []rune(v) {
		if i%2 == 0 {
			fmt.Fprintf(&b, "&#%d;", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestRedactDecodedHexInsideABlob: the hex of a value inside a longer hex
// run is found at an odd digit as at an even one.
func TestRedactDecodedHexInsideABlob(t *testing.T) {
	v := "hunter2-noecho-v1"
	s := newSet(t, v)
	for _, text := range []string{
		"deadbeef" + hexOf(v, "%x") + "cafe",
		"a" + hexOf(v, "%x") + "0",
		"sha=abc" + hexOf("user:"+v+"\n", "%X"),
	} {
		out := s.Redact(text)
		assert.Assert(t, !strings.Contains(strings.ToLower(out), hexOf(v, "%x")), "%q", out)
		assert.Assert(t, strings.Contains(out, Replacement), "%q", out)
	}
}

// TestDecodingLeavesOrdinaryTextAlone: escapes, entities and hex that do
// not decode to a secret are left as they are.
func TestDecodingLeavesOrdinaryTextAlone(t *testing.T) {
	s := newSet(t, "hunter2-noecho-v1", unicodeV)
	for _, text := range []string{
		`{"a":"line\nnext \"quoted\" \u00e9 \ud83d\udd11"} 100% done, 50%off &amp; &lt;b&gt; &#42; &#x2a; &nosuch; &`,
		"commit 0123456789abcdef0123456789abcdef01234567 and DEADBEEF",
		`a lone \ud800 surrogate, \x zz, %zz, &#;`,
	} {
		assert.Equal(t, s.Redact(text), text)
		assert.Assert(t, !s.Contains(text))
	}
}
