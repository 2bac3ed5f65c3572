package redact

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Lines redacts cdkd's lines before they reach a result: together, not one
// by one, so that a secret split across lines (a multi-line value, its
// base64 wrapped at 64 or 76 columns, or a value wrapped at any column) is
// still found, and as cdkd's error output (secrets.Set.RedactLoose: in
// another case or normalization too). A multi-line secret becomes one
// "***", so fewer lines may come back. nil for no lines.
func Lines(set *secrets.Set, lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	return strings.Split(set.RedactLoose(strings.Join(lines, "\n")), "\n")
}
