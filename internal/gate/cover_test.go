package gate

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// stackWith is StackA changing the given resources.
func stackWith(changes ...model.ResourceChange) model.Diff {
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: changes}}}
	d.Sort()
	return d
}

func update(id, path, old, new string) model.ResourceChange {
	return model.ResourceChange{LogicalID: id, ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic", PropertyChanges: []model.PropertyChange{
		{Path: path, Old: model.StringValue(old), New: model.StringValue(new)}}}
}

func create(id, value string) model.ResourceChange {
	return model.ResourceChange{LogicalID: id, ChangeType: model.ChangeCreate, ResourceType: "AWS::SSM::Parameter", PropertyChanges: []model.PropertyChange{
		{Path: "Value", New: model.StringValue(value)}}}
}

// reviewsOf is a trusted review of each diff, the first the push's own pull
// request (#7), the others its batch (#8, #9, ...).
func reviewsOf(diffs ...model.Diff) Review {
	rv := reviewOf(diffs[0])
	for i, d := range diffs[1:] {
		b := reviewOf(d)
		b.PR = 8 + i
		rv.Batch = append(rv.Batch, b)
	}
	return rv
}

// The deploy makes only reviewed changes: what the reviews hold that is in
// place already is said, not refused; anything else, or a change whose
// starting point moved, is refused.
func TestCoverageRule(t *testing.T) {
	a := update("Topic", "DisplayName", "a", "b")
	b := update("Queue", "DisplayName", "q1", "q2")
	both := stackWith(a, b)
	tests := []struct {
		name    string
		review  Review
		current model.Diff
		reason  Reason
		says    []string
	}{
		{name: "B reviewed as A+B, A deployed since", review: reviewsOf(both), current: stackWith(b),
			says: []string{"Every change is one reviewed in pull request #7", "already in place, so not deployed again: update Topic (AWS::SNS::Topic) in StackA; update Topic.DisplayName in StackA"}},
		{name: "a stack without changes never counts", review: reviewsOf(stackWith(a)),
			current: model.Diff{Stacks: append(stackWith(a).Stacks, model.StackDiff{Stack: "NewStack", Region: "us-east-1"})}},
		{name: "an old value that moved", review: reviewsOf(stackWith(a)), current: stackWith(update("Topic", "DisplayName", "c", "b")),
			reason: reason.DiffChanged, says: []string{"update Topic.DisplayName in StackA starts from another value than pull request #7 reviewed"}},
		{name: "a change no review holds", review: reviewsOf(stackWith(a)), current: both,
			reason: reason.DiffChanged, says: []string{"update Queue.DisplayName in StackA was in no review"}},
		{name: "a creation with other properties", review: reviewsOf(stackWith(create("Param", "v1"))), current: stackWith(create("Param", "v2")),
			reason: reason.DiffChanged, says: []string{"create Param (AWS::SSM::Parameter) in StackA differs from what pull request #7 reviewed"}},
		{name: "a batch of three, each its own change", review: reviewsOf(stackWith(a), stackWith(b), stackWith(create("Param", "v1"))),
			current: stackWith(a, b, create("Param", "v1")), says: []string{"pull requests #7, #8 and #9"}},
		{name: "two reviews of one resource, different properties", review: reviewsOf(stackWith(a), stackWith(update("Topic", "Tags", "x", "y"))),
			current: stackWith(model.ResourceChange{LogicalID: "Topic", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
				PropertyChanges: append(a.PropertyChanges, update("Topic", "Tags", "x", "y").PropertyChanges...)})},
		{name: "two reviews setting one property differently", review: reviewsOf(stackWith(a), stackWith(update("Topic", "DisplayName", "a", "z"))),
			current: stackWith(a), reason: reason.ReviewsContradict, says: []string{"update Topic.DisplayName in StackA (set differently by pull requests #7 and #8)"}},
		{name: "a batch member's review is stale", review: func() Review {
			rv := reviewsOf(stackWith(a), stackWith(b))
			rv.Batch[0].HeadSHA = otherSHA
			return rv
		}(), current: both, reason: reason.StaleReview, says: []string{"pull request #8 was reviewed at 1111111"}},
		{name: "a batch member without a review", review: func() Review {
			rv := reviewsOf(stackWith(a))
			rv.Batch = append(rv.Batch, Review{PR: 8, HeadSHA: headSHA, Commit: "commit 9999999"})
			return rv
		}(), current: stackWith(a), reason: reason.NoReviewedDiff, says: []string{"Pull request #8 has no diff comment"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(policy(true), tc.review, current(tc.current))
			assert.Equal(t, d.Reason, tc.reason, d.Message)
			assert.Equal(t, d.Deploy, tc.reason == "", d.Message)
			assert.Equal(t, d.Reviewed, tc.reason == "")
			text := d.Message + " " + strings.Join(d.Notes, " ")
			for _, s := range tc.says {
				assert.Assert(t, is.Contains(text, s))
			}
		})
	}
}

// A destructive change is approved by the label of a pull request whose
// review holds it, not by another of the batch.
func TestCoverageLabels(t *testing.T) {
	del := model.ResourceChange{LogicalID: "Old", ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"}
	a := update("Topic", "DisplayName", "a", "b")
	rv := reviewsOf(stackWith(a), stackWith(del))
	rv.Approvals.DestructiveBy = "carol" // #7's, which did not review the delete
	d := Decide(policy(true), rv, current(stackWith(a, del)))
	assert.Equal(t, d.Reason, reason.DestructiveRefused, d.Message)
	rv.Batch[0].Approvals.DestructiveBy = "carol"
	assert.Assert(t, Decide(policy(true), rv, current(stackWith(a, del))).Deploy)
}
