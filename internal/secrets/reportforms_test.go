package secrets_test

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// The redactor at a sink sees Markdown the reporters wrote: a value that
// reached a renderer unredacted (a miss upstream) is still found in its
// escaped, one-line form. This pins the secrets package's copy of the
// reporters' escaping to the real thing.
func TestReportFormsMatchTheReporters(t *testing.T) {
	values := []string{
		"under_score*star`tick`|pipe",
		"tab\tand  two spaces",
		"line one\nline two secret",
		"bidi\u202emark-secret",
		`back\slash~tilde$dollar<b>&amp;[x](y)!`,
	}
	s := secrets.NewSet()
	for _, v := range values {
		s.Add(v, "test")
	}
	for _, v := range values {
		for name, md := range map[string]string{"Text": reporters.Text(v), "Code": reporters.Code(v), "CodeHTML": reporters.CodeHTML(v)} {
			got := s.Redact("before " + md + " after")
			rest := strings.NewReplacer("before ", "", " after", "", secrets.Replacement, "", "`", "", "<code>", "", "</code>", "", " ", "").Replace(got)
			assert.Equal(t, rest, "", "%s(%q) = %q is not wholly redacted: %q", name, v, md, got)
		}
	}
}
