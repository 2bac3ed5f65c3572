package secrets

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestFoldTreatsEveryUnicodeSpaceAsWhitespace(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{" a \t b\n\nc ", "a b c"},
		{"a\u00a0b", "a b"},           // no-break space
		{"a\u2009\u2009b", "a b"},     // thin space
		{"a\u3000b", "a b"},           // ideographic space
		{"a\u202f\u205fb", "a b"},     // narrow no-break, medium mathematical
		{"a\r\n\u0085\u2028b", "a b"}, // line breaks of every kind
	} {
		assert.Equal(t, Fold(tc.in), tc.want, "%q", tc.in)
	}
}

// Folding first would turn each secret into a string the redactor does not
// know; OneLine redacts it in its original form.
func TestOneLineRedactsBeforeFolding(t *testing.T) {
	secrets := []string{"tab\tsecret-1", "two  spaces-2", "nbsp\u00a0secret-3", "thin\u2009secret-4", "ideo\u3000secret-5", "multi\nline-secret-6"}
	s := newSet(t, secrets...)
	for _, v := range secrets {
		got := s.OneLine("Error:\n  value " + v + "  rejected")
		assert.Equal(t, got, "Error: value *** rejected")
		assert.Assert(t, !strings.Contains(got, Fold(v)))
	}
	// A match that only folding forms is redacted too.
	s = newSet(t, "joined secret-7")
	assert.Equal(t, s.OneLine("x joined\n\tsecret-7 y"), "x *** y")
}
