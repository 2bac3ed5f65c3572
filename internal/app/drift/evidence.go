package drift

import (
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
)

// logEvidence reads cdkd's per-resource lines about resources it did not
// compare, from stderr and from any text after the JSON on stdout. They
// are parsed on cdkd's own words (a redactor's *** could break a match) and
// kept redacted.
func logEvidence(res cdkd.Result) []cdkd.LogCause {
	_, text := cdkd.SplitJSON(res.Stdout)
	return cdkd.NotComparedLines(append(text, res.StderrTail...))
}
