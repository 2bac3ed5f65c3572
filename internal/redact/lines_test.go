package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func TestLines(t *testing.T) {
	const secret = "lines-secret-value-0123456789"
	// A long blob holding the secret, base64-encoded and wrapped at 64
	// columns as PEM does: no line on its own holds an encoded form.
	blob := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", 40) + secret + strings.Repeat("y", 40)))
	var wrapped []string
	for len(blob) > 64 {
		wrapped = append(wrapped, blob[:64])
		blob = blob[64:]
	}
	wrapped = append(wrapped, blob)
	const quotedSecret = `say "q" \ and-a-secret`
	quoted, err := json.Marshal(quotedSecret)
	assert.NilError(t, err)
	const escaped = "needs escaping/and space&more"
	tests := []struct {
		name  string
		lines []string
		want  []string // nil: only check that nothing left matches a secret
	}{
		{name: "no lines", lines: nil, want: nil},
		{name: "plain", lines: []string{"Error: " + secret + " was refused", "done"}, want: []string{"Error: *** was refused", "done"}},
		// Redacted together, a secret spanning lines becomes one "***".
		{name: "a multi-line secret split across lines", lines: []string{"value:", "line-one-of-secret", "line-two-of-secret", "end"},
			want: []string{"value:", "***", "end"}},
		{name: "JSON-escaped", lines: []string{`{"msg":` + string(quoted) + `}`}},
		{name: "URL-encoded in a query", lines: []string{"GET /x?token=" + url.QueryEscape(escaped)}},
		{name: "base64 wrapped at 64 columns", lines: wrapped},
	}
	set := secrets.NewSet()
	set.Add(secret, "test")
	set.Add(quotedSecret, "quotes")
	set.Add(escaped, "needs escaping")
	set.Add("line-one-of-secret\nline-two-of-secret", "multi-line")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Lines(set, tc.lines)
			if tc.lines == nil {
				assert.Assert(t, got == nil)
				return
			}
			if tc.want != nil {
				assert.DeepEqual(t, got, tc.want)
			}
			assert.Assert(t, got[0] != tc.lines[0] || len(got) > 1 && got[1] != tc.lines[1], "nothing was redacted: %q", got)
			// Nothing left matches any form of the secret, joined or not.
			assert.Equal(t, set.Redact(strings.Join(got, "\n")), strings.Join(got, "\n"))
			for _, l := range got {
				for _, v := range []string{secret, quotedSecret, escaped, string(quoted[1 : len(quoted)-1]), url.QueryEscape(escaped)} {
					assert.Assert(t, !strings.Contains(l, v), l)
				}
			}
		})
	}
}
