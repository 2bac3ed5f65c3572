package gate

import (
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// Trusting github-actions' check runs is trusting every workflow that uses
// GITHUB_TOKEN: the report says so, whatever the outcome; a dedicated app
// closes it.
func TestSharedRecordNote(t *testing.T) {
	for app, want := range map[string]bool{"": true, "github-actions": true, "GitHub-Actions": true, "cdkd-reviewer": false} {
		p := policy(true)
		p.TrustedApp = app
		d := Decide(p, reviewOf(safeDiff()), current(safeDiff()))
		assert.Equal(t, slices.Contains(d.Notes, SharedRecordNote), want, app)
		refused := Decide(p, Review{Commit: "commit 9999999"}, current(safeDiff()))
		assert.Equal(t, refused.Reason, reason.NoReviewedDiff)
		assert.Equal(t, slices.Contains(refused.Notes, SharedRecordNote), want, app)
	}
	off := Decide(policy(false), reviewOf(safeDiff()), current(safeDiff()))
	assert.Assert(t, len(off.Notes) == 0, "without the gate nothing vouches for anything")
}

// With only fingerprints stored, the visible report is rendered again from
// the current change set when its digest is the reviewed one: a report kept
// from another change set over this digest is an edit.
func TestRerenderedReport(t *testing.T) {
	rv := reviewOf(safeDiff())
	rv.ChangeSet = &ChangeSet{Digest: rv.Digest, Fingerprints: safeDiff().Fingerprints()}
	var got []model.Diff
	rv.Rerender = func(d model.Diff) string { got = append(got, d); return "its visible report differs from line 3 on" }
	d := Decide(policy(true), rv, current(safeDiff()))
	assert.Equal(t, d.Reason, reason.NoReviewedDiff)
	assert.Assert(t, is.Contains(d.Message, "its visible report differs from line 3 on"))
	assert.Equal(t, len(got), 1)
	assert.Equal(t, got[0].Digest(), rv.Digest)

	rv.Rerender = func(model.Diff) string { return "" }
	assert.Assert(t, Decide(policy(true), rv, current(safeDiff())).Deploy)

	// Another digest: nothing to render it from; the digests refuse it.
	rv.Rerender = func(model.Diff) string { t.Fatal("rendered from a change set the digest does not cover"); return "" }
	assert.Equal(t, Decide(policy(true), rv, current(changedDiff())).Reason, reason.DiffChanged)
}
