package secrets

import (
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"html"
	"io"
	"net/url"
	"strings"
	"testing"
)

// FuzzRedact checks, for any two values and any surrounding text, that no
// redactable value survives Redact in any encoding the standard library
// produces, that Redact is idempotent and that Contains agrees. The seed
// corpus runs as a unit test with plain `go test`.
func FuzzRedact(f *testing.F) {
	f.Add(noEcho, "hunter2-noecho-v2", "prefix ", " suffix")
	f.Add(special, regexMeta, "user:", "\n")
	f.Add(unicodeV, control, "x", "xy")
	f.Add(multiLine, jsonDoc, "", "")
	f.Add("abcd1234", "abcd1234-long-suffix", "ab", "cd")
	f.Add("a***", "**ab", "***", "*")
	f.Add("\xff\xfe-invalid-utf8", "ok-value", "\xc3", "\xa9")
	f.Add("  spaced value  ", "tab\tvalue", " ", "  ")
	f.Add("abc", "ab", "short values are not redacted", "")

	f.Fuzz(func(t *testing.T, v1, v2, prefix, suffix string) {
		s := NewSet()
		s.Add(v1, "v1")
		s.Add(v2, "v2")

		var text strings.Builder
		text.WriteString(prefix)
		for _, v := range []string{v1, v2} {
			for _, e := range stdEncodings(v) {
				text.WriteString(e)
				text.WriteString(suffix)
			}
			text.WriteString(base64.StdEncoding.EncodeToString([]byte(prefix + v + suffix)))
			text.WriteString(suffix)
		}

		out := s.Redact(text.String())
		if again := s.Redact(out); again != out {
			t.Fatalf("not idempotent:\n once: %q\ntwice: %q", out, again)
		}
		// The error path's redaction too: it redacts at least as much.
		loose := s.RedactLoose(text.String())
		if again := s.RedactLoose(loose); again != loose {
			t.Fatalf("RedactLoose not idempotent:\n once: %q\ntwice: %q", loose, again)
		}
		if s.ContainsLoose(loose) || s.Contains(loose) {
			t.Fatalf("ContainsLoose after RedactLoose: %q", loose)
		}
		if s.Contains(out) {
			t.Fatalf("Contains after Redact: %q", out)
		}
		for _, v := range []string{v1, v2} {
			if !redactable(v) {
				continue
			}
			for _, form := range []string{v, strings.TrimSpace(v)} {
				for _, e := range stdEncodings(form) {
					if len(e) >= minPatternBytes && strings.Contains(out, e) {
						t.Fatalf("value %q survives as %q in %q", form, e, out)
					}
				}
			}
			// The digits of base64(prefix+v+suffix) that only hold bits of v.
			blob := base64.StdEncoding.EncodeToString([]byte(prefix + v + suffix))
			first := (8*len(prefix) + 5) / 6
			last := 8 * (len(prefix) + len(v)) / 6
			if last-first >= minPatternBytes && strings.Contains(out, blob[first:last]) {
				t.Fatalf("base64 digits of %q survive in %q", v, out)
			}
		}
	})
}

// stdEncodings returns v as the standard library encodes it in each way
// Redact must cover.
func stdEncodings(v string) []string {
	var b strings.Builder
	xmlEscapeText(&b, v)
	return []string{
		v,
		base64.StdEncoding.EncodeToString([]byte(v)),
		base64.RawStdEncoding.EncodeToString([]byte(v)),
		base64.URLEncoding.EncodeToString([]byte(v)),
		base64.RawURLEncoding.EncodeToString([]byte(v)),
		goJSONForTest(v, true),
		goJSONForTest(v, false),
		url.QueryEscape(v),
		url.PathEscape(v),
		html.EscapeString(v),
		b.String(),
	}
}

// goJSONForTest is v as encoding/json writes it inside a string.
func goJSONForTest(v string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(v) // a string always encodes
	s := strings.TrimSuffix(b.String(), "\n")
	return s[1 : len(s)-1]
}

func xmlEscapeText(w io.Writer, v string) {
	_ = xml.EscapeText(w, []byte(v)) // only fails when w does
}
