package prcomment

import (
	"fmt"

	"errors"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// reviewed is a diff comment as the diff command writes it for sampleDiff.
func reviewed(t *testing.T) Comment {
	t.Helper()
	d := sampleDiff(t)
	h := marker.Header{V: 1, Kind: KindDiff, Label: "prod", SHA: "8888888888888888888888888888888888888888", Digest: d.Digest(), Cdkd: "0.284.40",
		Run: "https://github.com/octo-org/octo-repo/actions/runs/42", Notes: []string{"No cloud assembly was found."}}
	line := EncodeChangeSet(d, 20000, nil)
	return Body(h, line, reporters.CommentBudget, func(b reporters.Budget) string { return reporters.DiffMarkdown(DiffReport(h, d), b) })
}

// The whole comment, every part in place, read back to the same parts.
func TestCommentRoundTrip(t *testing.T) {
	c := reviewed(t).WithDeploy("### cdkd deploy\n\n✅ **Deployed** the reviewed change set.\n")
	body := c.String()
	golden.Assert(t, body, "comment.golden")
	got, ok := Parse(body)
	assert.Assert(t, ok)
	assert.DeepEqual(t, got, c)

	for _, tc := range []Comment{
		{Header: marker.Header{V: 1, Kind: KindDiff, Label: "x"}, Report: "### cdkd diff\n\nfailed\n"},
		{Header: marker.Header{V: 1, Kind: KindDeploy}, Deploy: "### cdkd deploy\n"},
		{Header: marker.Header{V: 1, Kind: KindDiff}, ChangeSet: c.ChangeSet, Report: "no final newline"},
		{Header: marker.Header{V: 1, Kind: KindDiff}, ChangeSet: c.ChangeSet, Report: "no final newline", Deploy: "x"},
	} {
		got, ok := Parse(tc.String())
		assert.Assert(t, ok, tc.String())
		assert.DeepEqual(t, got, tc)
	}
	_, ok = Parse("### cdkd diff\n")
	assert.Assert(t, !ok, "no header, not ours")
}

// A deploy replaces its own section and never touches the reviewed part,
// even when the comment is full: its own section is shortened instead.
func TestWithDeploy(t *testing.T) {
	c := reviewed(t)
	first := c.WithDeploy("### cdkd deploy\n\n✅ **Deployed**\n")
	second, _ := Parse(first.WithDeploy("### cdkd deploy\n\n❌ **Deploy failed**\n").String())
	assert.Equal(t, strings.Count(second.String(), DeployMarker), 1)
	assert.Equal(t, second.Report, c.Report)
	assert.Equal(t, second.ChangeSet, c.ChangeSet)
	assert.Assert(t, is.Contains(second.Deploy, "Deploy failed"))

	full := Comment{Header: c.Header, ChangeSet: "<!-- cdkd-action-changeset:v1 " + strings.Repeat("A", 19000) + " -->",
		Report: "### cdkd diff\n\n" + strings.Repeat("- 🔄 **update** `Resource` · `AWS::SNS::Topic`\n", 800)}
	got := full.WithDeploy(strings.Repeat("x", 15000) + "\n")
	assert.Assert(t, utf8.RuneCountInString(got.String()) <= MaxChars-redactorRoom, utf8.RuneCountInString(got.String()))
	assert.Equal(t, got.Report, full.Report, "the reviewed report stays byte for byte")
	assert.Assert(t, is.Contains(got.Deploy, "The deploy outcome was shortened"))
}

// The gate re-renders the report from the change set: the untouched
// comment passes, any edit of what reviewers read does not.
func TestVerifyReport(t *testing.T) {
	c := reviewed(t)
	parsed, ok := Parse(c.WithDeploy("### cdkd deploy\n\n✅\n").String())
	assert.Assert(t, ok)
	cs, err := DecodeChangeSet(parsed.String(), parsed.Header.Digest)
	assert.NilError(t, err)
	assert.NilError(t, parsed.VerifyReport(cs, reporters.CommentBudget, nil))

	edits := map[string]func(Comment) Comment{
		"a word in the report": func(c Comment) Comment {
			c.Report = strings.Replace(c.Report, "replace", "update", 1)
			return c
		},
		"a line added": func(c Comment) Comment { c.Report += "\nLooks harmless to me.\n"; return c },
		"a note changed in the header": func(c Comment) Comment {
			c.Header.Notes = []string{"Reviewed by the security team."}
			return c
		},
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			err := edit(parsed).VerifyReport(cs, reporters.CommentBudget, nil)
			assert.Assert(t, errors.Is(err, ErrReportEdited), err)
		})
	}
	// A value the deploy redacts and the diff did not (or did) is no edit.
	redactor := replacer{strings.NewReplacer(`"added in v2"`, `"***"`)}
	assert.NilError(t, parsed.VerifyReport(cs, reporters.CommentBudget, redactor))
	redacted := parsed
	redacted.Report = redactor.Redact(parsed.Report)
	assert.Assert(t, redacted.Report != parsed.Report)
	assert.NilError(t, redacted.VerifyReport(cs, reporters.CommentBudget, redactor))
	assert.Assert(t, errors.Is(redacted.VerifyReport(cs, reporters.CommentBudget, nil), ErrReportEdited))

	// Only fingerprints stored: the report cannot be rendered again.
	assert.ErrorContains(t, parsed.VerifyReport(&model.ChangeSet{Digest: cs.Digest, Fingerprints: nil}, reporters.CommentBudget, nil), "not stored whole")
}

type replacer struct{ r *strings.Replacer }

func (r replacer) Redact(s string) string { return r.r.Replace(s) }
func (r replacer) Contains(s string) bool { return r.Redact(s) != s }

// RedactExceptBlobs: a replacer decodes nothing.
func (r replacer) RedactExceptBlobs(s string) string { return r.Redact(s) }

// A comment whose header carries huge notes (520 created resources missing
// from the template once made a 66,777-character comment) stays within
// GitHub's limit however large the report, and still verifies: the report
// is rendered within what the notes leave, and re-rendered within the same.
func TestHugeNotesCommentWithinLimit(t *testing.T) {
	d, err := cdkd.DecodeDiff([]byte(cdkdtest.DiffJSON(4, 100)))
	assert.NilError(t, err)
	names := make([]string, 520)
	for i := range names {
		names[i] = fmt.Sprintf("AppStack/CreatedResource%04d<&>%s", i, strings.Repeat("Long", 20))
	}
	notes := []string{"Values hidden at " + strings.Join(names, ", ") + ": the resource is not in the template, so whether they are secret is unknown."}
	for i := range 30 {
		notes = append(notes, fmt.Sprintf("Note %d <%s>", i, strings.Repeat("&", 900)))
	}
	h := marker.Header{V: 1, Kind: KindDiff, Label: "prod", SHA: "8888888888888888888888888888888888888888", Digest: d.Digest(),
		Run: "https://github.com/octo-org/octo-repo/actions/runs/42", Notes: reporters.ShortNotes(notes)}
	line := EncodeChangeSet(d, 20000, nil)
	c := Body(h, line, reporters.CommentBudget, func(b reporters.Budget) string { return reporters.DiffMarkdown(DiffReport(h, d), b) })
	// The publisher stamps the header after rendering (github.Stamp): the
	// gate then reads a longer header than the diff rendered with.
	c.Header.Extra = map[string]string{"content": "0123456789abcdef"}
	body := c.String()
	assert.Assert(t, utf8.RuneCountInString(body) <= MaxChars-redactorRoom, "%d characters", utf8.RuneCountInString(body))
	assert.Assert(t, is.Contains(body, "more (the full list is in the report JSON)"))
	assert.Assert(t, is.Contains(c.Report, "Report shortened"), "the report does not fill its budget")
	parsed, ok := Parse(body)
	assert.Assert(t, ok)
	cs, err := DecodeChangeSet(body, h.Digest)
	assert.NilError(t, err)
	assert.NilError(t, parsed.VerifyReport(cs, reporters.CommentBudget, nil))
	assert.Equal(t, ReportBudget(reporters.CommentBudget, parsed.Header, parsed.ChangeSet), ReportBudget(reporters.CommentBudget, h, line),
		"the gate re-renders within the budget the diff rendered in")
}
