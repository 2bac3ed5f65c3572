package diff

import (
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/app/session"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"gotest.tools/v3/assert"
)

// The diff command itself never builds such a line: a change set whose
// decoded form holds a secret falls back to its fingerprints.
func TestChangeSetLineFallsBackToFingerprints(t *testing.T) {
	const secret = "missed-by-the-model-secret-43"
	set := secrets.NewSet()
	set.Add(secret, "test")
	r := &run{Options: Options{Secrets: &session.Session{Set: set}}}
	d := diffHolding(secret)
	h := marker.Header{Kind: prcomment.KindDiff, SHA: "abc", Digest: d.Digest()}
	line := r.comment(h, reporters.DiffReport{Diff: d, Digest: d.Digest()}, &d, false, reporters.CommentBudget).ChangeSet
	assert.Assert(t, line != "")
	assert.Assert(t, !prcomment.ChangeSetLeaks(set, d.Digest(), line))
	cs, err := prcomment.DecodeChangeSet("\n"+line, d.Digest())
	assert.NilError(t, err)
	assert.Assert(t, cs.Diff == nil && len(cs.Fingerprints) > 0, "the whole change set was stored")
}

func diffHolding(value string) model.Diff {
	return model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{{
		LogicalID: "Param", ChangeType: "UPDATE", ResourceType: "AWS::SSM::Parameter",
		PropertyChanges: []model.PropertyChange{{Path: "Value", Old: model.JSONValue(`"old"`), New: model.JSONValue(`"` + value + `"`)}},
	}}}}}
}
