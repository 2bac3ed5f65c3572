package redact

// Tokens decides which values redaction hid (Report.Hidden) are
// fingerprinted into the digest's hidden-value tokens (model.HiddenToken),
// within bounds on the hashing a run does and on the tokens a change set
// holds; past either bound every token is unverifiable, and it says why. It
// does not hash: the caller hashes Items and hands the fingerprints to Fill.

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// MaxTokenValues bounds the distinct values a run hashes with Argon2id for the
// digest's hidden-value tokens: Argon2id runs once per distinct value (however
// many places it fills; see fingerprint.SchemeShared), one hash at the
// default parameters takes about 50 ms of one core, and a run hashes on
// every core, so 2,400 is about a minute on a 2-core runner: room for 1,200
// changed NoEcho positions with values of their own (each hides its old and
// its new value), and for any number that share fewer values. A shard
// counts the values it hashes itself.
const MaxTokenValues = 2400

// MaxTokenPlaces bounds the tokens (a value at a place) of a change set,
// carried ones included: each is a keyed HMAC, cheap, but each lengthens
// the change set. It is counted exactly by a single run and by an
// aggregate of shards alike. A diff with no cloud assembly hides every
// value and can hold many more.
const MaxTokenPlaces = 20000

// Tokens collects the values redaction hid: each value at each place once,
// while there are at most MaxTokenPlaces of them and at most MaxTokenValues distinct
// values to hash; past either bound every token is unverifiable at once,
// and nothing more is kept than counts. A token a shard's report carries
// counts as a place (it stands for one), not as a value to hash: the shard
// hashed it. The zero Tokens is empty and ready.
type Tokens struct {
	tokens  []*model.HiddenToken // to fill
	at      []int                // tokens[i]'s item
	items   []fingerprint.Item
	values  []model.Value        // items[i]'s value; hashed as canonical JSON
	carried []*model.HiddenToken // set already
	index   map[string]int       // a value or carried token at a place: its item
	// distinct are the distinct values this run hashes.
	distinct map[string]struct{}
	over     bool
	// past a bound: a digest of each place and of each distinct value
	// seen, only to say how many there were; atLeast when a shard past a
	// bound hides how many it saw.
	places, valuesSeen map[[sha256.Size]byte]struct{}
	atLeast            bool
	// uncounted are index and distinct as Unverifiable left them, hashed
	// into places and valuesSeen only when a count is needed (a value
	// added past the bound, or OverBound): a run without a key is
	// unverifiable without any count being asked for.
	uncounted struct {
		index    map[string]int
		distinct map[string]struct{}
	}
}

// AddAll adds what the redaction stage hid, in its order.
func (m *Tokens) AddAll(hidden []Hidden) {
	if n := min(len(hidden), MaxTokenPlaces); m.index == nil && !m.over && n > 0 {
		// Sized once: a diff without an assembly hides thousands of values,
		// and growing these lists copied each several times.
		m.index, m.distinct = make(map[string]int, n), make(map[string]struct{}, min(n, MaxTokenValues))
		m.items, m.values = make([]fingerprint.Item, 0, n), make([]model.Value, 0, n)
		m.tokens, m.at = make([]*model.HiddenToken, 0, n), make([]int, 0, n)
	}
	for _, h := range hidden {
		m.Add(h)
	}
}

// Add adds one hidden value.
func (m *Tokens) Add(h Hidden) {
	if *h.Token == model.TokenUnverifiable {
		m.Unverifiable() // a shard was past the bound: so is the whole
		m.atLeast = true
		return
	}
	key, value, carried := tokenKey(h)
	if m.over {
		m.count(key, value, carried)
		*h.Token = model.TokenUnverifiable
		return
	}
	if m.index == nil {
		m.index, m.distinct = map[string]int{}, map[string]struct{}{}
	}
	n, ok := m.index[key]
	if !ok {
		_, seen := m.distinct[value]
		if len(m.index) == MaxTokenPlaces || !carried && !seen && len(m.distinct) == MaxTokenValues {
			m.Unverifiable()
			m.count(key, value, carried)
			*h.Token = model.TokenUnverifiable
			return
		}
		n = len(m.items)
		m.index[key] = n
		if !carried {
			m.distinct[value] = struct{}{}
			m.items = append(m.items, fingerprint.Item{Position: placePosition(h.Place)})
			m.values = append(m.values, h.Original)
		}
	}
	if carried {
		m.carried = append(m.carried, h.Token)
		return
	}
	m.tokens = append(m.tokens, h.Token)
	m.at = append(m.at, n)
}

// tokenKey identifies a hidden value at its place (key) and the value alone
// (value; "" for a carried token). A value is keyed as cdkd spelled it
// (canonical JSON, which the hash reads, costs; cdkd spells one value one
// way), a carried token by itself: distinct tokens at a place are distinct
// values.
func tokenKey(h Hidden) (key, value string, carried bool) {
	if *h.Token != "" {
		return joinKey("t", h.Place, string(*h.Token)), "", true
	}
	key = joinKey("v", h.Place, string(h.Original.Raw))
	return key, key[len(key)-len(h.Original.Raw):], false
}

// joinKey is tag, the place's fields and last, joined by NULs, built in
// one allocation: a key is made for every value a diff hides.
func joinKey(tag string, p Place, last string) string {
	kind := "r"
	if p.Output {
		kind = "o"
	}
	parts := [...]string{tag, p.Stack, p.Region, kind, p.Name, p.Path, last}
	n := len(parts) - 1
	for _, s := range parts {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, s := range parts {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(s)
	}
	return b.String()
}

// count counts a place and its value past the bound.
func (m *Tokens) count(key, value string, carried bool) {
	m.hashUncounted()
	m.places[sha256.Sum256([]byte(key))] = struct{}{}
	if !carried {
		m.valuesSeen[sha256.Sum256([]byte(value))] = struct{}{}
	}
}

// Unverifiable makes every token unverifiable, the ones added later too,
// and keeps nothing more than what counting places and distinct values
// needs: past a bound, or when the values cannot be hashed.
func (m *Tokens) Unverifiable() {
	if !m.over {
		m.uncounted.index, m.uncounted.distinct = m.index, m.distinct
	}
	m.over = true
	for _, toks := range [][]*model.HiddenToken{m.tokens, m.carried} {
		for _, tok := range toks {
			*tok = model.TokenUnverifiable
		}
	}
	m.tokens, m.carried, m.items, m.values, m.index, m.distinct, m.at = nil, nil, nil, nil, nil, nil, nil
}

// hashUncounted hashes what Unverifiable left uncounted.
func (m *Tokens) hashUncounted() {
	if m.places != nil {
		return
	}
	index, distinct := m.uncounted.index, m.uncounted.distinct
	m.places = make(map[[sha256.Size]byte]struct{}, len(index))
	m.valuesSeen = make(map[[sha256.Size]byte]struct{}, len(distinct))
	for k := range index {
		m.places[sha256.Sum256([]byte(k))] = struct{}{}
	}
	for v := range distinct {
		m.valuesSeen[sha256.Sum256([]byte(v))] = struct{}{}
	}
	m.uncounted.index, m.uncounted.distinct = nil, nil
}

// Over reports whether every token is unverifiable (see Unverifiable).
func (m *Tokens) Over() bool { return m.over }

// Empty reports whether the set holds no token at all, to fill or carried:
// nothing needs a key.
func (m *Tokens) Empty() bool { return len(m.tokens) == 0 && len(m.carried) == 0 }

// OverBound says which bound the change set is past, with the count, and
// why so many.
func (m *Tokens) OverBound(haveAssembly bool) string {
	m.hashUncounted()
	atLeast := ""
	if m.atLeast {
		atLeast = "at least "
	}
	var why string
	if len(m.valuesSeen) > MaxTokenValues {
		why = fmt.Sprintf("the change set hides %s%d distinct values, more than the %d cdkd-action fingerprints into the digest in one run (about a minute of hashing on a 2-core runner)", atLeast, len(m.valuesSeen), MaxTokenValues)
	} else {
		why = fmt.Sprintf("the change set hides values at %s%d places, more than the %d cdkd-action fingerprints into the digest", atLeast, len(m.places), MaxTokenPlaces)
	}
	if !haveAssembly {
		return why + "; without the cloud assembly every value is hidden, its position unknown"
	}
	return why + "; with the cloud assembly only secret positions are hidden, so this many are secret values that change: deploy them in smaller change sets (the stacks input, or several pull requests)"
}

// Items are the values to hash, one per value at a place (its position
// salts it), each as canonical JSON; none once the set is over a bound.
func (m *Tokens) Items() []fingerprint.Item {
	for i := range m.items {
		m.items[i].Value = model.CanonicalJSON(m.values[i])
	}
	return m.items
}

// Fill sets each token to the fingerprint of its value, fps being Items'
// hashes in Items' order.
func (m *Tokens) Fill(fps []fingerprint.Fingerprint) {
	for i, tok := range m.tokens {
		*tok = model.FingerprintToken(fps[m.at[i]].Hash)
	}
}

// placePosition salts a hidden value's fingerprint by where it was.
func placePosition(p Place) fingerprint.Position {
	if p.Output {
		return fingerprint.Position{Stack: p.Stack, Region: p.Region, Kind: fingerprint.KindOutput, Output: p.Name, Path: p.Path}
	}
	return fingerprint.Position{Stack: p.Stack, Region: p.Region, Kind: fingerprint.KindResource, LogicalID: p.Name, Path: p.Path}
}
