package diff

import (
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// maxChangeSetChars caps the hidden change set line of a diff comment, so
// the visible report keeps most of the comment.
const maxChangeSetChars = 20000

// comment is the diff comment for rep: the hidden line recording the
// reviewed change set d (redacted, sorted) for a later deploy, and the
// visible report within what is left of b. A successful diff's report is
// rendered from the header and the recorded change set alone, in this
// release's layout (prcomment.CurrentRenderer), exactly as the deploy gate
// renders it again to verify it: from the change set whole when the line
// or the state bucket (stored) keeps it whole, else from what its digest
// covers. A failed diff (d nil), or one missing part of its change set (a
// shard that did not report), records nothing.
// commentOnce is comment, rendered once per header and budget: the diff
// reads what the comment shows of the picture before the comment target
// renders it to write.
func (r *run) commentOnce(rep reporters.DiffReport, d *model.Diff, stored bool) func(marker.Header, reporters.Budget) prcomment.Comment {
	var last struct {
		header string
		budget reporters.Budget
		c      prcomment.Comment
		ok     bool
	}
	return func(h marker.Header, b reporters.Budget) prcomment.Comment {
		if key := h.String(); !last.ok || last.header != key || last.budget != b {
			last.header, last.budget, last.c, last.ok = key, b, r.comment(h, rep, d, stored, b), true
		}
		return last.c
	}
}

func (r *run) comment(h marker.Header, rep reporters.DiffReport, d *model.Diff, stored bool, b reporters.Budget) prcomment.Comment {
	if d == nil || rep.Error != "" || rep.Missing != "" {
		return prcomment.Body(h, "", b, func(b reporters.Budget) string { return reporters.DiffMarkdown(rep, b) })
	}
	// The header is outside the report's budget: it carries the notes as
	// the report shows them, shortened, so the gate renders them alike.
	h.Run, h.Notes = rep.RunURL, reporters.ShortNotes(rep.Notes)
	rd := prcomment.CurrentRenderer()
	h.Render = rd.Version
	// A form whose line or decoded content the redactor would alter is
	// refused, so the next (fingerprints) is used.
	line := prcomment.EncodeChangeSet(*d, maxChangeSetChars, r.changeSetReject(d.Digest()))
	view, whole := *d, stored
	if cs, err := prcomment.DecodeChangeSet(h.String()+"\n"+line, h.Digest); err == nil && cs.Diff != nil {
		view, whole = *cs.Diff, true // what the gate will decode, to the byte
	}
	return prcomment.Comment{Header: h, ChangeSet: line, Report: rd.Report(h, line, view, whole, b)}
}
