package app

import (
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// maxChangeSetChars caps the hidden change set line of a diff comment, so
// the visible report keeps most of the comment.
const maxChangeSetChars = 20000

// changeSetLine returns the hidden line recording the reviewed change set d
// (redacted, sorted) for a later deploy, newline included, and takes its
// size from the comment's budget. A failed diff (d nil) records nothing.
// See gate.EncodeChangeSet for the format.
func (r *run) changeSetLine(d *model.Diff, b *reporters.Budget) string {
	if d == nil {
		return ""
	}
	// A form whose line or decoded content the redactor would alter is
	// refused, so the next (fingerprints) is used.
	digest := d.Digest()
	reject := func(line string) bool { return r.set.Contains(line) || changeSetLeaks(r.set, digest, line) }
	line := gate.EncodeChangeSet(*d, maxChangeSetChars, reject)
	if line == "" {
		return ""
	}
	if b.MaxChars > 0 {
		b.MaxChars -= utf8.RuneCountInString(line) + 1
	}
	return line + "\n"
}
