package prcomment

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// A header without a layout is layout 1; a layout this release does not
// have is named as such, never as an edit.
func TestRendererOf(t *testing.T) {
	for _, v := range []int{0, 1} {
		rd, err := RendererOf(v)
		assert.NilError(t, err)
		assert.Equal(t, rd.Version, 1)
	}
	assert.Equal(t, CurrentRenderer().Version, RendererVersion)
	_, err := RendererOf(7)
	assert.Assert(t, errors.Is(err, ErrUnknownRenderer))
	assert.ErrorContains(t, err, "unknown report layout v7: this release of cdkd-action renders layouts v1 to v4")

	c := reviewed(t)
	c.Header.Render = 7
	cs, derr := DecodeChangeSet(c.String(), c.Header.Digest)
	assert.NilError(t, derr)
	err = c.VerifyReport(cs, reporters.CommentBudget, nil)
	assert.Assert(t, errors.Is(err, ErrUnknownRenderer), "%v", err)
	assert.Assert(t, !errors.Is(err, ErrReportEdited))
}

// A report whose change set is not recorded whole shows only what the
// digest covers, so the deploy renders it again from its own change set,
// which has the same digest but not what only the diff's run could read.
func TestViewOfAChangeSetNotKeptWhole(t *testing.T) {
	d := sampleDiff(t)
	withSecrets := d
	withSecrets.Stacks = append([]model.StackDiff(nil), d.Stacks...)
	withSecrets.Stacks[0].SecretValues = []model.SecretValue{{LogicalID: "Db", Path: "MasterUserPassword", Source: "NoEcho parameter DbPassword",
		Status: model.FingerprintUnknown, Reason: "the state bucket could not be read"}}
	withSecrets.Stacks[0].NoEchoReaders = []string{"Reader"}
	assert.Equal(t, withSecrets.Digest(), d.Digest(), "the digest does not cover them")

	h := marker.Header{V: 1, Kind: KindDiff, SHA: "8888888888888888888888888888888888888888", Digest: d.Digest(), Render: RendererVersion}
	rd := CurrentRenderer()
	c := Comment{Header: h, Report: rd.Report(h, "", withSecrets, false, reporters.CommentBudget)}
	assert.Assert(t, !is.Contains(c.Report, "MasterUserPassword")().Success(), "what only the diff read is not shown")
	assert.NilError(t, c.VerifyView(d, reporters.CommentBudget, nil), "rendered again from the deploy's change set")

	// Whole, the same report shows them, and is checked against them.
	whole := Comment{Header: h, Report: rd.Report(h, "", withSecrets, true, reporters.CommentBudget)}
	assert.Assert(t, is.Contains(whole.Report, "MasterUserPassword"))
	assert.NilError(t, whole.VerifyReport(&model.ChangeSet{Digest: d.Digest(), Diff: &withSecrets}, reporters.CommentBudget, nil))
	assert.Assert(t, errors.Is(whole.VerifyView(d, reporters.CommentBudget, nil), ErrReportEdited))
}
