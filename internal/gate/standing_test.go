package gate

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A merge queue's check names every pull request whose review fails the
// gate's rules, each with its reason, not only the first.
func TestStandings(t *testing.T) {
	a := stackWith(update("Topic", "DisplayName", "a", "b"))
	rv := reviewsOf(a, a, a, a)
	rv.Batch[0].HeadSHA = "7777777777777777777777777777777777777777" // pushed after its review
	rv.Batch[1].Record = nil                                         // no check run vouches for it
	rv.Batch[2].Comment, rv.Batch[2].Digest = false, ""              // never diffed
	got := Standings(Policy{RequireReviewedDiff: true}, rv)
	assert.Equal(t, len(got), 4)
	assert.Equal(t, got[0].PR, 7)
	assert.Equal(t, got[0].Reason, Reason(""), got[0].Problem)
	assert.Equal(t, got[1].Reason, StaleReview)
	assert.Assert(t, is.Contains(got[1].Problem, "final head is 7777777"))
	assert.Equal(t, got[2].Reason, NoReviewedDiff)
	assert.Assert(t, is.Contains(got[2].Problem, "records the review of pull request #9"))
	assert.Equal(t, got[3].Reason, NoReviewedDiff)
	assert.Assert(t, is.Contains(got[3].Problem, "Pull request #10 has no diff comment"))
}
