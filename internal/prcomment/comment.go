// Package prcomment is the comment (and issue body) the action writes, as a
// type: the hidden header on the first line, the hidden change-set line a
// diff comment carries under it, the visible report reviewers read, and the
// deploy section a deploy appends below the report. It is the only code that
// writes or parses these markers.
package prcomment

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Kinds of comment and issue, in the header: a later run finds its own by
// kind and label (and author).
const (
	KindDiff   = "diff"
	KindDeploy = "deploy"
)

// DeployMarker starts the deploy section appended to a diff comment; a later
// deploy replaces everything from it on, and the reviewed report above it is
// never touched.
const DeployMarker = "<!-- cdkd-action-deploy -->"

// deploySeparator is what stands between the report and the deploy section.
const deploySeparator = "\n" + DeployMarker + "\n\n"

// MaxChars is GitHub's limit on a comment body, in characters.
const MaxChars = 65536

// redactorRoom is kept free for the redactor at the sink, which may lengthen a
// secret shorter than the "***" it becomes (as reporters.CommentBudget does).
const redactorRoom = 2048

// Comment is one comment of ours split into its parts. String joins them
// back; Parse(c.String()) gives c again.
type Comment struct {
	Header marker.Header
	// ChangeSet is the hidden change-set line (see EncodeChangeSet), "" when
	// the comment carries none.
	ChangeSet string
	// Report is the visible report, byte for byte as the diff wrote it: the
	// deploy gate compares it with a report re-rendered from the change set.
	Report string
	// Deploy is the deploy section's text after its marker, "" when there
	// is none. It is the only part written after the review.
	Deploy string
}

// Parse splits body into its parts; false when its first line is no header
// of ours. The change-set line is only read right under the header, and the
// deploy section starts at the first deploy marker on a line of its own.
func Parse(body string) (Comment, bool) {
	h, ok := marker.Parse(body)
	if !ok {
		return Comment{}, false
	}
	c := Comment{Header: h}
	_, rest, _ := strings.Cut(body, "\n")
	if first, after, found := strings.Cut(rest, "\n"); strings.HasPrefix(strings.TrimSpace(first), changeSetMarker) {
		c.ChangeSet, rest = strings.TrimSuffix(first, "\r"), after
		if !found {
			rest = ""
		}
	}
	switch i := strings.Index(rest, deploySeparator); {
	case strings.HasPrefix(rest, DeployMarker+"\n\n"):
		c.Deploy = strings.TrimPrefix(rest, DeployMarker+"\n\n")
		return c, true
	case i >= 0:
		c.Report, c.Deploy = rest[:i], rest[i+len(deploySeparator):]
	default:
		c.Report = rest
	}
	return c, true
}

// String is the comment body.
func (c Comment) String() string {
	var b strings.Builder
	b.WriteString(c.Header.String())
	b.WriteString("\n")
	if c.ChangeSet != "" {
		b.WriteString(c.ChangeSet)
		b.WriteString("\n")
	}
	b.WriteString(c.Report)
	if c.Deploy != "" {
		if c.Report == "" {
			b.WriteString(DeployMarker + "\n\n")
		} else {
			b.WriteString(deploySeparator)
		}
		b.WriteString(c.Deploy)
	}
	return b.String()
}

// notesReserve is how much of the header its notes may take within the
// room reporters.CommentBudget keeps for the header and the redactor;
// longer notes come off the report.
const notesReserve = 256

// ReportBudget is what is left of budget for the visible report once the
// header h and the change-set line (and its newline) are in the comment.
// The diff renders the report within it, and the deploy gate re-renders it
// within the same. Only the notes' part of the header counts: the publisher
// stamps the header after rendering, so its length then differs.
func ReportBudget(budget reporters.Budget, h marker.Header, changeSetLine string) reporters.Budget {
	if budget.MaxChars <= 0 {
		return budget
	}
	if changeSetLine != "" {
		budget.MaxChars -= utf8.RuneCountInString(changeSetLine) + 1
	}
	empty := utf8.RuneCountInString(marker.Header{}.String())
	notes := utf8.RuneCountInString(marker.Header{Notes: h.Notes}.String()) - empty
	if notes > notesReserve {
		budget.MaxChars -= notes - notesReserve
	}
	if len(h.Picture) > 0 {
		// The picture's record (layout 2 on) counts whole: it is as big as
		// the picture, and has no reserve.
		budget.MaxChars -= utf8.RuneCountInString(marker.Header{Picture: h.Picture}.String()) - empty
	}
	// A header too big to leave any room leaves the report none, not an
	// unlimited budget.
	budget.MaxChars = max(budget.MaxChars, 1)
	return budget
}

// Body is a new comment: header h, the change-set line (may be "") and the
// report rendered within what is left of budget.
func Body(h marker.Header, changeSetLine string, budget reporters.Budget, render func(reporters.Budget) string) Comment {
	return Comment{Header: h, ChangeSet: changeSetLine, Report: render(ReportBudget(budget, h, changeSetLine))}
}

// WithDeploy returns c with its deploy section replaced by section,
// shortened so that the whole comment stays within GitHub's limit. The
// header, the change-set line and the report stay byte for byte: they are
// the review a later deploy verifies.
func (c Comment) WithDeploy(section string) Comment {
	c.Deploy = ""
	avail := MaxChars - redactorRoom - utf8.RuneCountInString(c.String()) - utf8.RuneCountInString(deploySeparator) - 1
	if avail <= 0 {
		return c // no room at all: the outcome is in the check run and the job summary
	}
	c.Deploy = reporters.Truncate(section, reporters.Budget{MaxChars: avail, Channel: "the PR comment"},
		"✂️ The deploy outcome was shortened to fit the comment; the full report is in the job summary of the deploy run.")
	return c
}

// Redactor redacts secrets in text (*secrets.Set implements it).
type Redactor interface {
	Redact(string) string
	// RedactExceptBlobs is Redact without looking inside encoded blobs:
	// the redaction of review layouts 1 to 3 (see renderers).
	RedactExceptBlobs(string) string
	// Contains reports whether text holds a secret Redact would hide.
	Contains(string) bool
}

// Redact redacts secrets in a body whose first line may be our header. The
// header's SHA, digest and hashes are not secrets, but a short secret that
// happens to look like hex would turn them into *** and break every later
// comparison (a deploy would refuse its own review); so only the header's
// free-text fields are redacted there. The change-set line after it is
// opaque (base64 of gzip): it is decoded and searched, and left out when it
// holds a secret or cannot be read back (the digest alone then guards the
// deploy).
func Redact(r Redactor, body string) string {
	first, rest, found := strings.Cut(body, "\n")
	h, ok := marker.Parse(first)
	if !ok || h.String() != first {
		return r.Redact(body)
	}
	h.Label, h.Cdkd, h.Run = r.Redact(h.Label), r.Redact(h.Cdkd), r.Redact(h.Run)
	for i, n := range h.Notes {
		h.Notes[i] = r.Redact(n)
	}
	if len(h.Picture) > 0 {
		h = WithPicture(h, Picture(h).MapNames(r.Redact))
	}
	if !found {
		return h.String()
	}
	if line, after, _ := strings.Cut(rest, "\n"); ChangeSetLeaks(r, h.Digest, line) {
		rest = after
	}
	return h.String() + "\n" + r.Redact(rest)
}

// ChangeSetLeaks reports whether line, when it is a change-set line, must
// not be posted: what it decodes to holds a value the redactor would hide
// (a miss of the model's redaction must not ride out inside base64+gzip),
// or it does not decode against digest at all.
func ChangeSetLeaks(r Redactor, digest, line string) bool {
	cs, err := DecodeChangeSet("\n"+line, digest)
	if errors.Is(err, ErrNoChangeSet) {
		return false // not a change-set line
	}
	if err != nil {
		return true
	}
	decoded, err := json.Marshal(cs)
	return err != nil || r.Contains(string(decoded))
}
