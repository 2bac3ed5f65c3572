package app

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
)

func TestMaskSetHashesEachDistinctValueOnce(t *testing.T) {
	var m maskSet
	toks := make([]model.MaskToken, 4)
	place := redact.Place{Stack: "A", Region: "us-east-1", Name: "Db", Path: "Password"}
	m.add(redact.Hidden{Place: place, Original: model.StringValue("v1"), Token: &toks[0]})
	m.add(redact.Hidden{Place: place, Original: model.StringValue("v1"), Token: &toks[1]})
	m.add(redact.Hidden{Place: place, Original: model.StringValue("v2"), Token: &toks[2]})
	other := place
	other.Name = "Db2"
	m.add(redact.Hidden{Place: other, Original: model.StringValue("v1"), Token: &toks[3]})
	assert.Equal(t, len(m.items), 3, "one value at one place is hashed once; one value at two places twice (salted apart)")
	assert.DeepEqual(t, m.at, []int{0, 0, 1, 2})
	assert.Assert(t, !m.over)
}

func TestMaskSetPastTheBoundIsUnverifiable(t *testing.T) {
	var m maskSet
	toks := make([]model.MaskToken, maxMaskedValues+10)
	for i := range toks {
		m.add(redact.Hidden{Place: redact.Place{Stack: "A", Name: fmt.Sprintf("R%d", i), Path: "P"}, Original: model.StringValue("x"), Token: &toks[i]})
	}
	assert.Assert(t, m.over)
	assert.Equal(t, len(m.items), 0, "nothing is kept for hashing")
	for i, tok := range toks {
		assert.Equal(t, tok, model.MaskUnverifiable, "token %d", i)
	}
	// The refusal names the real count and cause, not a guess.
	assert.Assert(t, strings.Contains(m.overBound(false), fmt.Sprintf("hides %d distinct values", maxMaskedValues+10)), m.overBound(false))
	assert.Assert(t, strings.Contains(m.overBound(false), "without the cloud assembly"))
	withAsm := m.overBound(true)
	assert.Assert(t, !strings.Contains(withAsm, "without the cloud assembly"), "the assembly was passed: %s", withAsm)
	assert.Assert(t, strings.Contains(withAsm, "smaller change sets"), withAsm)
}

// Changed NoEcho positions each hide an old and a new value: 1,000 of them
// must stay under the bound (250 blocked every deploy at a bound of 500).
func TestMaskSetHoldsAThousandChangedPositions(t *testing.T) {
	var m maskSet
	toks := make([]model.MaskToken, 2000)
	for i := range 1000 {
		place := redact.Place{Stack: "A", Name: fmt.Sprintf("Db%d", i), Path: "MasterUserPassword"}
		m.add(redact.Hidden{Place: place, Original: model.StringValue(fmt.Sprintf("old-%d", i)), Token: &toks[2*i]})
		m.add(redact.Hidden{Place: place, Original: model.StringValue(fmt.Sprintf("new-%d", i)), Token: &toks[2*i+1]})
	}
	assert.Assert(t, !m.over)
	assert.Equal(t, len(m.items), 2000)
}

// An aggregate counts the tokens its shards carry as the values they stand
// for: past the bound over every stack, all are unverifiable, as in one run.
func TestMaskSetCountsCarriedTokens(t *testing.T) {
	var m maskSet
	carried := make([]model.MaskToken, maxMaskedValues)
	for i := range carried {
		carried[i] = model.FingerprintToken(fmt.Sprint(i))
		m.add(redact.Hidden{Place: redact.Place{Stack: "A", Name: fmt.Sprintf("R%d", i), Path: "P"}, Token: &carried[i]})
	}
	assert.Assert(t, !m.over)
	assert.Equal(t, len(m.items), 0, "a carried token is not hashed again")
	var fresh model.MaskToken
	m.add(redact.Hidden{Place: redact.Place{Stack: "B", Name: "R", Path: "P"}, Original: model.StringValue("x"), Token: &fresh})
	assert.Assert(t, m.over)
	assert.Equal(t, fresh, model.MaskUnverifiable)
	assert.Equal(t, carried[0], model.MaskUnverifiable)

	var n maskSet
	shard, other := model.MaskUnverifiable, model.FingerprintToken("a")
	n.add(redact.Hidden{Place: redact.Place{Stack: "A"}, Token: &other})
	n.add(redact.Hidden{Place: redact.Place{Stack: "B"}, Token: &shard})
	assert.Assert(t, n.over, "a shard past the bound puts the whole past it")
	assert.Assert(t, strings.Contains(n.overBound(true), "hides at least 1 distinct values"), "a shard's count past the bound is unknown: %s", n.overBound(true))
	assert.Equal(t, other, model.MaskUnverifiable)
}
