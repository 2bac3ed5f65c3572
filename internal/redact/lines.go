package redact

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Lines redacts cdkd's lines before they reach a result: together, not one
// by one, so that a secret split across lines (a multi-line value, or its
// base64 wrapped at 64 or 76 columns) is still found; such a secret
// becomes one mask, so fewer lines may come back. nil for no lines.
func Lines(set *secrets.Set, lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	return strings.Split(set.Redact(strings.Join(lines, "\n")), "\n")
}
