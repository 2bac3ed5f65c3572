package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// wrap breaks s into lines of width characters, as base64, MIME and PEM do.
func wrap(s string, width int, sep string) string {
	var lines []string
	for len(s) > width {
		lines = append(lines, s[:width])
		s = s[width:]
	}
	return strings.Join(append(lines, s), sep)
}

// A secret's encoding wrapped across lines must not survive as lines that
// join back into it, whatever the wrapping, indentation or line ending.
func TestRedactWrappedEncodings(t *testing.T) {
	secret := "wrapped-secret-value-0123456789-abcdefghij"
	s := newSet(t, secret)
	// Enough around the secret that it straddles a line break.
	blob := []byte(strings.Repeat("x", 40) + "user:" + secret + "\n" + strings.Repeat("y", 40))
	b64 := base64.StdEncoding.EncodeToString(blob)
	cases := map[string]string{
		"base64 at 76":          wrap(b64, 76, "\n"),
		"PEM at 64":             "-----BEGIN DATA-----\n" + wrap(b64, 64, "\n") + "\n-----END DATA-----",
		"MIME at 76, CRLF":      wrap(b64, 76, "\r\n"),
		"indented YAML block":   "data: |\n    " + wrap(b64, 64, "\n    ") + "\nnext: 1",
		"JSON-escaped newlines": `{"cert":"` + wrap(b64, 64, `\n`) + `"}`,
		"after a key":           "value: " + wrap(b64, 60, "\n"),
		"URL-safe at 76":        wrap(base64.URLEncoding.EncodeToString(blob), 76, "\n"),
		"unpadded at 48":        wrap(base64.RawStdEncoding.EncodeToString(blob), 48, "\n"),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			got := s.Redact("before\n" + text + "\nafter")
			joined := strings.NewReplacer("\r", "", "\n", "", " ", "", `\n`, "").Replace(got)
			for _, form := range base64Forms(secret) {
				if len(form) >= 8 {
					assert.Assert(t, !strings.Contains(joined, form), "the lines join back into %q:\n%s", form, got)
				}
			}
			assert.Assert(t, strings.Contains(got, Replacement), got)
			assert.Assert(t, strings.HasPrefix(got, "before\n") && strings.HasSuffix(got, "\nafter"), got)
			assert.Assert(t, s.Contains(text))
			assert.Equal(t, s.Redact(got), got, "not idempotent")
		})
	}
}

func TestRedactWrappedHex(t *testing.T) {
	secret := "hex-wrapped-secret-77"
	s := NewSet()
	// A hex dump of the secret is one of its forms only once registered;
	// the block scan joins any base64-alphabet encoding.
	h := hex.EncodeToString([]byte(secret))
	s.Add(secret, "test")
	s.Add(h, "hex form")
	got := s.Redact(wrap(h, 16, "\n"))
	assert.Assert(t, !strings.Contains(strings.ReplaceAll(got, "\n", ""), h[4:20]), got)
}

// Ordinary text is left alone: only a block of long base64-looking lines
// is joined, and nothing in it matches.
func TestRedactWrappedLeavesOrdinaryText(t *testing.T) {
	s := newSet(t, "some-secret-value")
	for _, text := range []string{
		"line one\nline two\n",
		"arn:aws:iam::123456789012:role/DeployRole\nMyBucketF68F3FF0LogicalId\nsome-secret-\nvalue",
		wrap(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("not it "), 40)), 64, "\n"),
	} {
		assert.Equal(t, s.Redact(text), text)
	}
}

// Streamed line by line, a wrapped block is held back until the line that
// ends it, so the occurrence it splits is still found; other lines go out
// as soon as they end.
func TestLineWriterWrappedBlock(t *testing.T) {
	secret := "streamed-wrapped-secret-0123456789"
	s := newSet(t, secret)
	blob := []byte(strings.Repeat("p", 40) + secret + strings.Repeat("q", 50)) // straddles columns 60 and 64
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"PEM at 64", strings.Split("-----BEGIN X-----\n"+wrap(base64.StdEncoding.EncodeToString(blob), 64, "\n")+"\n-----END X-----", "\n")},
		{"after a key", strings.Split("cert: "+wrap(base64.StdEncoding.EncodeToString(blob), 60, "\n"), "\n")},
		{"a block longer than the hold", strings.Split(wrap(base64.StdEncoding.EncodeToString(append(bytes.Repeat([]byte("z"), maxPending), blob...)), 76, "\n"), "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dst bytes.Buffer
			w := NewLineWriter(&dst, s)
			for _, l := range tc.lines {
				_, err := w.Write([]byte(l + "\n"))
				assert.NilError(t, err)
			}
			_, err := w.Write([]byte("done\n"))
			assert.NilError(t, err)
			assert.NilError(t, w.Close())
			joined := strings.ReplaceAll(dst.String(), "\n", "")
			for _, form := range base64Forms(secret) {
				assert.Assert(t, !strings.Contains(joined, form), "the streamed lines join back into %q", form)
			}
			assert.Assert(t, strings.HasSuffix(dst.String(), "done\n"))
		})
	}

	var dst bytes.Buffer
	w := NewLineWriter(&dst, s)
	_, err := w.Write([]byte("Deploying MyBucketF68F3FF0123456789\n"))
	assert.NilError(t, err)
	assert.Equal(t, dst.String(), "Deploying MyBucketF68F3FF0123456789\n", "a line of prose is not held back")
}

// Cut after redaction, a block whose start fell off is hidden: alone, its
// lines are no longer recognised as a secret's encoding and decode to the
// rest of it.
func TestLastLinesHidesACutBlock(t *testing.T) {
	block := wrap(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("k3y-material"), 20)), 76, "\n")
	lines := strings.Split(block, "\n")
	tests := []struct {
		name string
		text string
		n    int
		cut  bool
		want []string
	}{
		{name: "whole text kept", text: "a\n\nb", n: 5, want: []string{"a", "b"}},
		{name: "ordinary lines cut", text: "a\nb\nc", n: 2, want: []string{"b", "c"}},
		{name: "block after the cut is whole", text: "Error: x\n" + block, n: len(lines), want: lines},
		{name: "block cut", text: "Error: x\n" + block + "\nError: done", n: 3,
			want: []string{"[cdkd-action: 2 line(s) of an encoded block hidden: its start was cut off, so it could not be checked for secrets]", "Error: done"}},
		{name: "window cut before the text", text: lines[len(lines)-1] + "\nError: done", n: 5, cut: true,
			want: []string{"[cdkd-action: 1 line(s) of an encoded block hidden: its start was cut off, so it could not be checked for secrets]", "Error: done"}},
		{name: "text after a cut block line stays", text: lines[0] + "\nError: a\nError: b", n: 2, want: []string{"Error: a", "Error: b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, LastLines(tc.text, tc.n, tc.cut), tc.want)
		})
	}
}
