package app

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// A failed check carries the issue's record over, within GitHub's limit.
func TestIssueBodyKeepsTheRecordWithinBudget(t *testing.T) {
	failed := reporters.DriftReport{Verdict: model.ErrorVerdict(1, "boom"), Error: "cdkd drift failed: boom"}
	record := strings.Repeat("- `Res` · `AWS::SQS::Queue`\n", 5000) // larger than an issue takes
	prev := &github.Issue{Body: "<!-- header -->\n" + recordStart + "\n" + record + "\n" + recordEnd + "\n<sub>Last updated</sub>"}
	body := issueBody(failed, prev)
	assert.Assert(t, len(body) <= issueBudget.MaxChars, "%d chars", len(body))
	assert.Assert(t, is.Contains(body, "The latest check could not run"))
	assert.Assert(t, is.Contains(body, "**Last known drift**"))
	assert.Assert(t, is.Contains(body, "the last known drift was shortened to fit"))
	kept, ok := issueRecord(body)
	assert.Assert(t, ok, "the carried record can be carried again")
	assert.Assert(t, is.Contains(kept, "`AWS::SQS::Queue`"))

	// No record (an issue written before, or by a check that was not
	// drift): the failure alone.
	body = issueBody(failed, &github.Issue{Body: "old body"})
	assert.Assert(t, !strings.Contains(body, "Last known drift"))
}
