package redact

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

func TestTokensHashesEachDistinctValueOnce(t *testing.T) {
	var m Tokens
	toks := make([]model.HiddenToken, 4)
	place := Place{Stack: "A", Region: "us-east-1", Name: "Db", Path: "Password"}
	m.Add(Hidden{Place: place, Original: model.StringValue("v1"), Token: &toks[0]})
	m.Add(Hidden{Place: place, Original: model.StringValue("v1"), Token: &toks[1]})
	m.Add(Hidden{Place: place, Original: model.StringValue("v2"), Token: &toks[2]})
	other := place
	other.Name = "Db2"
	m.Add(Hidden{Place: other, Original: model.StringValue("v1"), Token: &toks[3]})
	assert.Equal(t, len(m.items), 3, "one value at one place is one token; one value at two places two (salted apart)")
	assert.Equal(t, len(m.distinct), 2, "the bound counts values, each hashed once")
	assert.DeepEqual(t, m.at, []int{0, 0, 1, 2})
	assert.Assert(t, !m.over)
}

func TestTokensPastTheBoundIsUnverifiable(t *testing.T) {
	var m Tokens
	toks := make([]model.HiddenToken, MaxTokenValues+10)
	for i := range toks {
		m.Add(Hidden{Place: Place{Stack: "A", Name: fmt.Sprintf("R%d", i), Path: "P"}, Original: model.StringValue(fmt.Sprintf("x%d", i)), Token: &toks[i]})
	}
	assert.Assert(t, m.over)
	assert.Equal(t, len(m.items), 0, "nothing is kept for hashing")
	for i, tok := range toks {
		assert.Equal(t, tok, model.TokenUnverifiable, "token %d", i)
	}
	// The refusal names the real count and cause, not a guess.
	assert.Assert(t, strings.Contains(m.OverBound(false), fmt.Sprintf("hides %d distinct values", MaxTokenValues+10)), m.OverBound(false))
	assert.Assert(t, strings.Contains(m.OverBound(false), "without the cloud assembly"))
	withAsm := m.OverBound(true)
	assert.Assert(t, !strings.Contains(withAsm, "without the cloud assembly"), "the assembly was passed: %s", withAsm)
	assert.Assert(t, strings.Contains(withAsm, "smaller change sets"), withAsm)
}

// Changed NoEcho positions each hide an old and a new value: 1,000 of them
// must stay under the bound (250 blocked every deploy at a bound of 500).
func TestTokensHoldsAThousandChangedPositions(t *testing.T) {
	var m Tokens
	toks := make([]model.HiddenToken, 2000)
	for i := range 1000 {
		place := Place{Stack: "A", Name: fmt.Sprintf("Db%d", i), Path: "MasterUserPassword"}
		m.Add(Hidden{Place: place, Original: model.StringValue(fmt.Sprintf("old-%d", i)), Token: &toks[2*i]})
		m.Add(Hidden{Place: place, Original: model.StringValue(fmt.Sprintf("new-%d", i)), Token: &toks[2*i+1]})
	}
	assert.Assert(t, !m.over)
	assert.Equal(t, len(m.items), 2000)
}

// The bound is on distinct values, not places: one NoEcho parameter that
// feeds five thousand places costs one hash, and a deploy of it goes ahead.
func TestTokensBoundCountsValuesNotPlaces(t *testing.T) {
	var m Tokens
	toks := make([]model.HiddenToken, 5000)
	for i := range toks {
		m.Add(Hidden{Place: Place{Stack: "A", Name: fmt.Sprintf("Db%d", i), Path: "MasterUserPassword"}, Original: model.StringValue(fmt.Sprintf("pw-%d", i%10)), Token: &toks[i]})
	}
	assert.Assert(t, !m.over)
	assert.Equal(t, len(m.items), 5000)
	assert.Equal(t, len(m.distinct), 10)
}

// An aggregate counts the tokens its shards carry as the places they stand
// for, exactly as one run over every stack counts them: past the bound on
// places, all are unverifiable. They are not values to hash: a carried
// token never counts against the bound on hashing.
func TestTokensCountsCarriedTokens(t *testing.T) {
	var m Tokens
	carried := make([]model.HiddenToken, MaxTokenPlaces)
	for i := range carried {
		carried[i] = model.FingerprintToken(fmt.Sprint(i))
		m.Add(Hidden{Place: Place{Stack: "A", Name: fmt.Sprintf("R%d", i), Path: "P"}, Token: &carried[i]})
	}
	assert.Assert(t, !m.over, "%d carried tokens are more than the values a run hashes, but none is hashed again", MaxTokenPlaces)
	assert.Equal(t, len(m.items), 0, "a carried token is not hashed again")
	var fresh model.HiddenToken
	m.Add(Hidden{Place: Place{Stack: "B", Name: "R", Path: "P"}, Original: model.StringValue("x"), Token: &fresh})
	assert.Assert(t, m.over)
	assert.Equal(t, fresh, model.TokenUnverifiable)
	assert.Equal(t, carried[0], model.TokenUnverifiable)
	assert.Assert(t, strings.Contains(m.OverBound(true), fmt.Sprintf("hides values at %d places, more than the %d", MaxTokenPlaces+1, MaxTokenPlaces)), m.OverBound(true))

	var n Tokens
	shard, other := model.TokenUnverifiable, model.FingerprintToken("a")
	n.Add(Hidden{Place: Place{Stack: "A"}, Token: &other})
	n.Add(Hidden{Place: Place{Stack: "B"}, Token: &shard})
	assert.Assert(t, n.over, "a shard past the bound puts the whole past it")
	assert.Assert(t, strings.Contains(n.OverBound(true), "at least 1 places"), "a shard's count past the bound is unknown: %s", n.OverBound(true))
	assert.Equal(t, other, model.TokenUnverifiable)
}

// Each token gets the fingerprint of its own value at its place, the
// hashes being those of Items, in Items' order; a carried token keeps its
// own.
func TestTokensFillEachTokenFromItsItem(t *testing.T) {
	var m Tokens
	toks := make([]model.HiddenToken, 3)
	carried := model.FingerprintToken("shard")
	place := Place{Stack: "A", Region: "us-east-1", Name: "Db", Path: "Password"}
	m.Add(Hidden{Place: place, Original: model.StringValue("v1"), Token: &toks[0]})
	m.Add(Hidden{Place: place, Original: model.JSONValue(`{"b":1, "a":2}`), Token: &toks[1]})
	m.Add(Hidden{Place: place, Original: model.StringValue("v1"), Token: &toks[2]})
	m.Add(Hidden{Place: Place{Stack: "B", Output: true, Name: "Out"}, Token: &carried})
	assert.Assert(t, !m.Empty())
	items := m.Items()
	assert.DeepEqual(t, []string{items[0].Value, items[1].Value}, []string{`"v1"`, model.CanonicalJSON(model.JSONValue(`{"b":1, "a":2}`))})
	assert.Equal(t, items[0].Position.LogicalID, "Db", "the place salts the value")
	m.Fill([]fingerprint.Fingerprint{{Hash: "h1"}, {Hash: "h2"}})
	assert.DeepEqual(t, toks, []model.HiddenToken{model.FingerprintToken("h1"), model.FingerprintToken("h2"), model.FingerprintToken("h1")})
	assert.Equal(t, carried, model.FingerprintToken("shard"))

	m.Unverifiable()
	assert.Assert(t, m.Over())
	assert.Equal(t, len(m.Items()), 0)
	assert.Equal(t, toks[0], model.TokenUnverifiable)
	assert.Equal(t, carried, model.TokenUnverifiable)
}

func TestNoTokensNeedNoKey(t *testing.T) {
	var m Tokens
	m.AddAll(nil)
	assert.Assert(t, m.Empty() && !m.Over())
}

// Made unverifiable by its caller (no key), a set counts nothing until a
// count is asked for, and then counts exactly: what it held before, what
// came after, each place and each distinct value once.
func TestUnverifiableCountsWhenAsked(t *testing.T) {
	var m Tokens
	add := func(stack, value string) {
		t.Helper()
		tok := new(model.HiddenToken)
		m.Add(Hidden{Place: Place{Stack: stack, Name: "R", Path: "P"}, Original: model.StringValue(value), Token: tok})
		if m.Over() {
			assert.Equal(t, *tok, model.TokenUnverifiable, "a value added past Unverifiable is unverifiable")
		}
	}
	add("A", "one")
	add("B", "one")
	m.Unverifiable()
	add("A", "one") // a place already counted
	add("C", "two")
	assert.Assert(t, strings.Contains(m.OverBound(true), "at 3 places"), m.OverBound(true))
	add("D", "three")
	assert.Assert(t, strings.Contains(m.OverBound(true), "at 4 places"), m.OverBound(true))
}
