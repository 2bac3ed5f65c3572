package gate

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// A merge queue's check names every pull request whose review fails the
// gate's rules, each with its reason, not only the first.
func TestStandings(t *testing.T) {
	a := stackWith(update("Topic", "DisplayName", "a", "b"))
	rv := reviewsOf(a, a, a, a)
	rv.Batch[0].HeadSHA = "7777777777777777777777777777777777777777" // pushed after its review
	rv.Batch[1].Record = nil                                         // no check run vouches for it
	rv.Batch[2].Comment, rv.Batch[2].Digest = false, ""              // never diffed
	got := Standings(Policy{RequireReviewedDiff: true}, rv, Decision{})
	assert.Equal(t, len(got), 4)
	assert.Equal(t, got[0].PR, 7)
	assert.Equal(t, got[0].Reason, Reason(""), got[0].Problem)
	assert.Equal(t, got[1].Reason, reason.StaleReview)
	assert.Assert(t, is.Contains(got[1].Problem, "final head is 7777777"))
	assert.Equal(t, got[2].Reason, reason.NoReviewedDiff)
	assert.Assert(t, is.Contains(got[2].Problem, "records the review of pull request #9"))
	assert.Equal(t, got[3].Reason, reason.NoReviewedDiff)
	assert.Assert(t, is.Contains(got[3].Problem, "Pull request #10 has no diff comment"))
}

// A review that passes the rules but holds a change otherwise than the
// group makes it (the base moved) is named with that change.
func TestStandingsNameWhatAReviewNoLongerCovers(t *testing.T) {
	rv := reviewsOf(stackWith(update("Topic", "DisplayName", "a", "b")), stackWith(update("Queue", "DisplayName", "q1", "q2")))
	cur := stackWith(update("Topic", "DisplayName", "c", "b"), update("Queue", "DisplayName", "q1", "q2"))
	p := Policy{RequireReviewedDiff: true}
	d := Decide(p, rv, Current{Diff: cur, Digest: cur.Digest()})
	assert.Equal(t, d.Reason, reason.DiffChanged)
	got := Standings(p, rv, d)
	assert.Equal(t, got[0].PR, 7)
	assert.Equal(t, got[0].Reason, reason.DiffChanged)
	assert.Equal(t, got[0].Problem, "Its review no longer covers what would deploy: update Topic.DisplayName in StackA starts from another value (it changed since the review).")
	assert.Equal(t, got[1].PR, 8)
	assert.Equal(t, got[1].Reason, Reason(""), "#8's review covers its change: %s", got[1].Problem)
}

// A group refused for a pull request's missing approvals names that pull
// request, and not the approved one.
func TestStandingsNameThePullRequestLackingApproval(t *testing.T) {
	a, b := stackWith(update("Topic", "DisplayName", "a", "b")), stackWith(update("Queue", "DisplayName", "q1", "q2"))
	rv := reviewsOf(a, b)
	rv.Approvals.Reviewers = []string{"alice"}
	cur := stackWith(update("Topic", "DisplayName", "a", "b"), update("Queue", "DisplayName", "q1", "q2"))
	p := pol(RequireApprovalNever, 1)
	d := Decide(p, rv, Current{Diff: cur, Digest: cur.Digest()})
	assert.Equal(t, d.Reason, reason.ApprovalsMissing, d.Message)
	got := Standings(p, rv, d)
	assert.Equal(t, got[0].Reason, Reason(""), "#7 is approved: %s", got[0].Problem)
	assert.Equal(t, got[1].Reason, reason.ApprovalsMissing)
	assert.Equal(t, got[1].Problem, "It has 0 of the 1 approving reviews required-approvals asks for its changes, which no pull request with enough approvals shows: update Queue (AWS::SNS::Topic) in StackA; update Queue.DisplayName in StackA.")
}
