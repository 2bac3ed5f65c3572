package reason

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// The exit codes are a contract across releases: a workflow that branches
// on one keeps working. A reason may be added; none changes its code.
func TestExitCodesArePinned(t *testing.T) {
	pinned := map[Reason]Exit{
		BadInput: ExitBadInput,
		Changes:  ExitChanges, Drift: ExitChanges, Incomplete: ExitChanges,
		NoReviewedDiff: ExitChanges, StaleReview: ExitChanges, DiffChanged: ExitChanges, DestructiveRefused: ExitChanges,
		DiffUnverifiable: ExitChanges, KeyMismatch: ExitChanges, ReviewsContradict: ExitChanges, ApprovalsMissing: ExitChanges, BroadeningRefused: ExitChanges,
		CdkdFailed: ExitFailure, APIFailed: ExitFailure, ResolutionFailed: ExitFailure,
		StateLocked: ExitFailure, DeployFailed: ExitFailure, Partial: ExitFailure, Cancelled: ExitFailure, Timeout: ExitFailure, ShardFailed: ExitFailure,
		ReportNotWritten: ExitFailure,
	}
	for r, code := range pinned {
		assert.Equal(t, r.Code(), code, "exit code of %s", r)
	}
	assert.Equal(t, None.Code(), ExitOK)
	assert.Equal(t, Reason("not-a-reason").Code(), ExitFailure, "an unknown reason never passes")
	seen := map[Reason]bool{}
	for _, e := range List() {
		assert.Assert(t, !seen[e.Reason], "%s is listed twice", e.Reason)
		seen[e.Reason] = true
		assert.Assert(t, e.Doc != "" && e.Commands != "", "%s has no meaning or commands", e.Reason)
	}
}

const (
	tableStart = "<!-- failure reasons: generated from internal/reason by go test ./internal/reason -update -->\n"
	tableEnd   = "<!-- end of failure reasons -->\n"
)

// docs/inputs.md documents every reason a workflow can branch on, with its
// exit code and meaning, exactly as the list has them.
func TestDocsListEveryReason(t *testing.T) {
	const path = "../../docs/inputs.md"
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	doc := string(b)
	start, end := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	assert.Assert(t, start >= 0 && end > start, "docs/inputs.md has no generated failure-reason table (%q ... %q)", tableStart, tableEnd)
	want := table()
	if golden.FlagUpdate() {
		doc = doc[:start+len(tableStart)] + want + doc[end:]
		assert.NilError(t, os.WriteFile(path, []byte(doc), 0o644))
		return
	}
	assert.Equal(t, doc[start+len(tableStart):end], want, "docs/inputs.md's failure-reason table differs from internal/reason's list: go test ./internal/reason -update")
}

func table() string {
	var b strings.Builder
	b.WriteString("| `failure-reason` | exit | commands | meaning |\n|---|---|---|---|\n")
	for _, e := range List() {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s |\n", e.Reason, e.Exit, e.Commands, e.Doc)
	}
	return b.String()
}
