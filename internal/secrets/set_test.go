package secrets

import (
	"encoding/base64"
	"html"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// Values used across the tests: the sample data's known secrets and values
// chosen to break naive redactors.
var (
	noEcho    = "hunter2-noecho-v1"
	special   = `p@ss w0rd/+&<>"'%=?#`
	regexMeta = `a.b*c+?(d)[e]{f}|^$\z`
	unicodeV  = "pässwörd-ünï-🔑-秘密"
	control   = "tab\there\x01bell\x7f\u2028end"
	multiLine = "-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\r\nqZk0W2yT+/lqXn8eK1vC\n-----END KEY-----"
	jsonDoc   = "{\n  \"username\": \"admin\",\n  \"password\": \"s3cr3t-pw-from-sm\"\n}"
)

func newSet(t *testing.T, values ...string) *Set {
	t.Helper()
	s := NewSet()
	for _, v := range values {
		assert.Assert(t, s.Add(v, "test"))
	}
	return s
}

func jsonInner(_ *testing.T, v string, escapeHTML bool) string {
	return goJSONForTest(v, escapeHTML)
}

func xmlText(_ *testing.T, v string) string {
	var b strings.Builder
	xmlEscapeText(&b, v)
	return b.String()
}

// TestRedactEncodings checks each encoding of each tricky value, computed
// with the standard library (not with the package's own encoders), inside
// surrounding text.
func TestRedactEncodings(t *testing.T) {
	encoders := []struct {
		name string
		enc  func(t *testing.T, v string) string
	}{
		{"raw", func(_ *testing.T, v string) string { return v }},
		{"base64", func(_ *testing.T, v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) }},
		{"base64 unpadded", func(_ *testing.T, v string) string { return base64.RawStdEncoding.EncodeToString([]byte(v)) }},
		{"base64url", func(_ *testing.T, v string) string { return base64.URLEncoding.EncodeToString([]byte(v)) }},
		{"base64url unpadded", func(_ *testing.T, v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }},
		{"json html-escaped", func(t *testing.T, v string) string { return jsonInner(t, v, true) }},
		{"json", func(t *testing.T, v string) string { return jsonInner(t, v, false) }},
		{"json in json", func(t *testing.T, v string) string { return jsonInner(t, jsonInner(t, v, false), true) }},
		{"query escape", func(_ *testing.T, v string) string { return url.QueryEscape(v) }},
		{"path escape", func(_ *testing.T, v string) string { return url.PathEscape(v) }},
		{"html", func(_ *testing.T, v string) string { return html.EscapeString(v) }},
		{"xml", xmlText},
		{"xml named entities", func(_ *testing.T, v string) string {
			return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(v)
		}},
		{"double quotes escaped", func(_ *testing.T, v string) string { return strings.ReplaceAll(v, `"`, `\"`) }},
		{"markdown table cell", func(_ *testing.T, v string) string { return strings.ReplaceAll(v, "|", `\|`) }},
	}
	values := map[string]string{
		"sample":     noEcho,
		"special":    special,
		"regex meta": regexMeta,
		"unicode":    unicodeV,
		"control":    control,
		"multi-line": multiLine,
		"json":       jsonDoc,
	}
	for vname, v := range values {
		s := newSet(t, v)
		for _, e := range encoders {
			t.Run(vname+"/"+e.name, func(t *testing.T) {
				encoded := e.enc(t, v)
				text := "before «" + encoded + "» after"
				got := s.Redact(text)
				assert.Equal(t, got, "before «***» after")
				assert.Assert(t, !s.Contains(got))
				assert.Assert(t, s.Contains(text))
			})
		}
	}
}

// TestRedactBase64Embedded checks a value encoded inside a larger blob, at
// each alignment, with text appended: every base64 digit whose bits all come
// from the value must be redacted, whatever surrounds it.
func TestRedactBase64Embedded(t *testing.T) {
	s := newSet(t, noEcho, unicodeV)
	for _, v := range []string{noEcho, unicodeV} {
		for _, prefix := range []string{"", "u", "us", "user:", "user:x"} {
			for _, suffix := range []string{"", "\n", "x", "xy", "xyz"} {
				for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
					blob := enc.EncodeToString([]byte(prefix + v + suffix))
					got := s.Redact("data: " + blob + " end")

					before, after, ok := strings.Cut(strings.TrimPrefix(got, "data: "), "***")
					assert.Assert(t, ok, "nothing redacted in %q (prefix %q suffix %q)", got, prefix, suffix)
					after = strings.TrimSuffix(after, " end")
					// Digits [first, last) hold only bits of v.
					first := (8*len(prefix) + 5) / 6
					last := 8 * (len(prefix) + len(v)) / 6
					assert.Assert(t, len(before) <= first, "prefix %q suffix %q: %q", prefix, suffix, got)
					assert.Assert(t, len(blob)-len(after) >= last, "prefix %q suffix %q: %q", prefix, suffix, got)
					assert.Equal(t, blob[:len(before)], before)
					assert.Equal(t, blob[len(blob)-len(after):], after)
				}
			}
		}
	}
}

func TestRedactOverlapping(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		text   string
		want   string
	}{
		{
			name:   "value that is a prefix of another",
			values: []string{"abcd1234", "abcd1234-long-suffix"},
			text:   "x abcd1234-long-suffix y abcd1234 z",
			want:   "x *** y *** z",
		},
		{
			name:   "prefix registered last",
			values: []string{"abcd1234-long-suffix", "abcd1234"},
			text:   "x abcd1234-long-suffix y",
			want:   "x *** y",
		},
		{
			name:   "overlapping values",
			values: []string{"abcdefgh", "efghijkl"},
			text:   "<abcdefghijkl>",
			want:   "<***>",
		},
		{
			name:   "adjacent values merge like the runner",
			values: []string{"abcdefgh", "ijklmnop"},
			text:   "<abcdefghijklmnop>",
			want:   "<***>",
		},
		{
			name:   "repeated value",
			values: []string{"abab"},
			text:   "ababababab!",
			want:   "***!",
		},
		{
			name:   "value inside another encoding",
			values: []string{"s3cr3t-pw-from-sm"},
			text:   `{"SecretString":"{\"password\":\"s3cr3t-pw-from-sm\"}"}`,
			want:   `{"SecretString":"{\"password\":\"***\"}"}`,
		},
		{
			name:   "surrounding whitespace of a value",
			values: []string{"  securepw1\n"},
			text:   "password=securepw1;",
			want:   "password=***;",
		},
		{
			name:   "lines of a multi-line value on their own",
			values: []string{multiLine},
			text:   "line: qZk0W2yT+/lqXn8eK1vC\n",
			want:   "line: ***\n",
		},
		{
			name:   "punctuation lines of a multi-line value are not redacted alone",
			values: []string{jsonDoc},
			text:   "{\n}\n\"username\": \"admin\",",
			want:   "{\n}\n***",
		},
		{
			name:   "nothing registered",
			values: nil,
			text:   "plain text",
			want:   "plain text",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSet(t, tc.values...)
			assert.Equal(t, s.Redact(tc.text), tc.want)
			in := []byte(tc.text)
			got := s.RedactBytes(in)
			assert.DeepEqual(t, got, []byte(tc.want))
			assert.Equal(t, string(in), tc.text, "the input is read, never changed")
			if len(got) > 0 && tc.want != tc.text {
				got[0] ^= 1 // a redacted result is a copy of its own
				assert.Equal(t, string(in), tc.text)
			}
		})
	}
}

// TestRedactShortValues documents the short-value policy: registered with
// the runner, never redacted by value.
func TestRedactShortValues(t *testing.T) {
	s := newSet(t, "a", "no", "1.5", "süß")
	assert.Equal(t, s.Len(), 4)
	text := "a banana, no, 1.5 süß"
	assert.Equal(t, s.Redact(text), text)
	assert.Assert(t, !s.Contains(text))
	assert.DeepEqual(t, s.MaskCommands(), []string{"1.5", "a", "no", "süß"})
	for _, r := range s.Registrations() {
		assert.Assert(t, !r.ByValue)
	}

	s.Add("four", "long enough")
	assert.Equal(t, s.Redact("four a"), "*** a")
}

func TestRedactIdempotent(t *testing.T) {
	tests := []struct {
		values []string
		text   string
	}{
		{[]string{"a***"}, "aaaaa****"},
		{[]string{"**ab", "xyzw"}, "*xyzwab"},
		{[]string{"x*y*"}, "x*yx*y**"},
		{[]string{noEcho}, "a" + noEcho + noEcho + "b"},
		{[]string{"****"}, "*******"},
	}
	for _, tc := range tests {
		s := newSet(t, tc.values...)
		once := s.Redact(tc.text)
		assert.Equal(t, s.Redact(once), once, "text %q", tc.text)
		assert.Assert(t, !s.Contains(once), "text %q gave %q", tc.text, once)
	}
}

// TestRedactChainIsLinear: each Replacement inserted for "x***" forms a new
// occurrence with the x before it; redacting until nothing changes would
// take one pass per x.
func TestRedactChainIsLinear(t *testing.T) {
	s := newSet(t, "x***")
	text := "<" + strings.Repeat("x", 1<<20) + "***>"
	assert.Equal(t, s.Redact(text), "<***>")
}

func TestRedactKeepsUTF8Valid(t *testing.T) {
	s := newSet(t, "ü-secret-ß", "🔑key")
	got := s.Redact("«ü-secret-ß» and 🔑🔑key🔑")
	assert.Equal(t, got, "«***» and 🔑***🔑")
	assert.Assert(t, utf8.ValidString(got))
}

func TestAdd(t *testing.T) {
	s := NewSet()
	assert.Assert(t, !s.Add("", "empty"))
	assert.Assert(t, !s.Add(" \t\n", "blank"))
	assert.Equal(t, s.Len(), 0)
	assert.Assert(t, s.Add(noEcho, "NoEcho parameter StackA/DbPassword default"))
	assert.Assert(t, s.Add(noEcho, "state of StackA"))
	assert.Assert(t, s.Add(noEcho, "state of StackA"))
	assert.Equal(t, s.Len(), 1)
	assert.DeepEqual(t, s.Registrations(), []Registration{{
		Sources:  []string{"NoEcho parameter StackA/DbPassword default", "state of StackA"},
		ByValue:  true,
		ByRunner: true,
	}})

	var zero Set
	assert.Assert(t, zero.Add(noEcho, "zero value"))
	assert.Equal(t, zero.Redact(noEcho), "***")
}

func TestMaskCommands(t *testing.T) {
	values := []string{"zeta-secret", jsonDoc, "  alpha-secret \n", multiLine, "x"}
	s := newSet(t, values...)
	want := []string{
		"-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\r\nqZk0W2yT+/lqXn8eK1vC\n-----END KEY-----",
		"-----BEGIN KEY-----",
		"MIIBOgIBAAJBAKj34GkxFhD9",
		"qZk0W2yT+/lqXn8eK1vC",
		"-----END KEY-----",
		"admin", // the structured secret's leaves and one-line forms
		"alpha-secret",
		"s3cr3t-pw-from-sm",
		"x",
		"zeta-secret",
		jsonDoc,
		`"username": "admin",`,
		`"password": "s3cr3t-pw-from-sm"`,
		`{"password":"s3cr3t-pw-from-sm","username":"admin"}`,
		`{"username": "admin", "password": "s3cr3t-pw-from-sm"}`,
		`{"username":"admin","password":"s3cr3t-pw-from-sm"}`,
	}
	assert.DeepEqual(t, s.MaskCommands(), want)

	// The order does not depend on the order of Add.
	reversed := slices.Clone(values)
	slices.Reverse(reversed)
	assert.DeepEqual(t, newSet(t, reversed...).MaskCommands(), want)
}

func TestMaskCommandsSkipsPunctuationLines(t *testing.T) {
	s := newSet(t, "[\n  {\n    \"k\": 1\n  },\n  \"v\"\n]")
	assert.DeepEqual(t, s.MaskCommands(), []string{"[\n  {\n    \"k\": 1\n  },\n  \"v\"\n]", `"k": 1`, `[{"k": 1}, "v"]`, `[{"k":1},"v"]`})
}

// TestAddWhileRedacting runs under -race: Add rebuilds the matcher lazily
// while other goroutines redact.
func TestAddWhileRedacting(t *testing.T) {
	s := NewSet()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				s.Add(strings.Repeat("k", 4+i)+string(rune('a'+j%26)), "goroutine")
				_ = s.Redact("some text kkkkkkka with values")
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, s.Redact("kkkkkkka"), "***")
}

// TestMaskCommandsWithRunner replays what the action prints through the
// runner simulator: the ::add-mask:: commands from MaskCommands first, then
// text holding the values. Lines printed raw (as a child process might) are
// masked by the runner thanks to the per-line registrations; text passed
// through Redact leaves the runner nothing to mask.
func TestMaskCommandsWithRunner(t *testing.T) {
	values := []string{noEcho, multiLine, jsonDoc, special}
	s := newSet(t, values...)

	var log strings.Builder
	escape := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	for _, v := range s.MaskCommands() {
		log.WriteString("::add-mask::" + escape.Replace(v) + "\n")
	}
	raw := "raw: " + noEcho + "\n" + multiLine + "\n" + jsonDoc + "\n" + special + "\n"
	log.WriteString(raw)
	log.WriteString(s.Redact("redacted: " + raw + base64.StdEncoding.EncodeToString([]byte(jsonDoc))))

	seen := runnermask.Simulate(log.String())
	for _, v := range values {
		assert.Assert(t, !strings.Contains(seen, v), "value %q visible in\n%s", v, seen)
		for _, line := range meaningfulLines(v) {
			assert.Assert(t, !strings.Contains(seen, line), "line %q visible in\n%s", line, seen)
		}
	}
	assert.Assert(t, strings.Contains(seen, "redacted: raw: ***\n***\n***\n***\n***\n"), seen)

	// Registering only whole values would leave the lines of a multi-line
	// value visible: that is why MaskCommands adds them.
	wholeOnly := "::add-mask::" + escape.Replace(multiLine) + "\n" + multiLine + "\n"
	assert.Assert(t, strings.Contains(runnermask.Simulate(wholeOnly), "MIIBOgIBAAJBAKj34GkxFhD9"))
}

// TestMaskCommandsNeverPunctuationOnly: the runner masks every occurrence
// of what it is given, so a value with no letter or digit ("{", "},", a
// password of symbols) would hide that punctuation all over the log. Whole
// values are held to this too, not only the lines of a multi-line one.
func TestMaskCommandsNeverPunctuationOnly(t *testing.T) {
	s := newSet(t, "{", "}", "},", " [] ", "--", "{\n}", "****", "!@#$%^&*", "ab", "a-b", "{\n  \"pw\": \"hunter2\"\n}")
	got := s.MaskCommands()
	for _, m := range got {
		assert.Assert(t, strings.IndexFunc(m, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0,
			"%q has no letter or digit", m)
	}
	assert.DeepEqual(t, got, []string{"a-b", "ab", "hunter2", "{\n  \"pw\": \"hunter2\"\n}", `"pw": "hunter2"`, `{"pw": "hunter2"}`, `{"pw":"hunter2"}`})

	// Such a value is still redacted by value when it is long enough, and
	// Registrations says the runner does not know it.
	assert.Equal(t, s.Redact("pw !@#$%^&* end"), "pw *** end")
	byRunner := map[bool]int{}
	for _, r := range s.Registrations() {
		byRunner[r.ByRunner]++
	}
	// "!@#$%^&" is the section before "&" the runner masks too (fragment.go).
	assert.DeepEqual(t, byRunner, map[bool]int{false: 9, true: 4})
}
