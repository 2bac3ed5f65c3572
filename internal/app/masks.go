package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// maxMaskedValues bounds the distinct values a run hashes with Argon2id
// for the digest's mask tokens: Argon2id runs once per distinct value
// (however many places it fills; see fingerprint.SchemeShared), one hash at
// the default parameters takes about 50 ms of one core, and a run hashes on
// every core, so 2,400 is about a minute on a 2-core runner: room for 1,200
// changed NoEcho positions with values of their own (each hides its old and
// its new value), and for any number that share fewer values. A shard
// counts the values it hashes itself.
const maxMaskedValues = 2400

// maxMaskedPlaces bounds the tokens (a value at a place) of a change set,
// carried ones included: each is a keyed HMAC, cheap, but each lengthens
// the change set. It is counted exactly by a single run and by an
// aggregate of shards alike. A diff with no cloud assembly hides every
// value and can hold many more.
const maxMaskedPlaces = 20000

// maskHasher is the hasher of the mask tokens: the fingerprints' own when
// they are on (one memo for both), else one with the same key. Without a
// fingerprint key there is none, and the error says why.
func (r *Env) maskHasher(ctx context.Context) (*fingerprint.Hasher, error) {
	r.fps.maskOnce.Do(func() {
		if fp := r.fingerprints(ctx); fp != nil && fp.hasher != nil {
			r.fps.mask = fp.hasher
			return
		}
		key, why := r.fingerprintKey(ctx)
		if key == nil {
			r.fps.maskErr = errors.New(why)
			return
		}
		r.fps.mask, r.fps.maskErr = fingerprint.NewHasher(fingerprint.Options{Key: key, Params: r.fingerprintParams()})
	})
	return r.fps.mask, r.fps.maskErr
}

// maskKeyID identifies the fingerprint key the mask tokens are keyed with,
// "" without one: the review records it, and the deploy must match it.
func (r *Env) maskKeyID(ctx context.Context) string {
	h, err := r.maskHasher(ctx)
	if err != nil {
		return ""
	}
	return h.KeyID()
}

// maskSet collects the values redaction hid (see redact.Report.Hidden)
// for fillMasks: each value at each place once, while there are at most
// maxMaskedPlaces of them and at most maxMaskedValues distinct values to
// hash; past either bound every token is unverifiable at once, and nothing
// more is kept than counts. A token a shard's report carries counts as a
// place (it stands for one), not as a value to hash: the shard hashed it.
type maskSet struct {
	tokens  []*model.MaskToken // to fill
	at      []int              // tokens[i]'s item
	items   []fingerprint.Item
	values  []model.Value      // items[i]'s value; hashed as canonical JSON
	carried []*model.MaskToken // set already
	index   map[string]int     // a value or carried token at a place: its item
	// distinct are the distinct values this run hashes.
	distinct map[string]struct{}
	over     bool
	// past a bound: a digest of each place and of each distinct value
	// seen, only to say how many there were; atLeast when a shard past a
	// bound hides how many it saw.
	places, valuesSeen map[[sha256.Size]byte]struct{}
	atLeast            bool
}

// addAll adds what the redaction stage hid, in its order.
func (m *maskSet) addAll(hidden []redact.Hidden) {
	for _, h := range hidden {
		m.add(h)
	}
}

// add adds one hidden value.
func (m *maskSet) add(h redact.Hidden) {
	if *h.Token == model.MaskUnverifiable {
		m.overflow() // a shard was past the bound: so is the whole
		m.atLeast = true
		return
	}
	key, value, carried := maskKey(h)
	if m.over {
		m.count(key, value, carried)
		*h.Token = model.MaskUnverifiable
		return
	}
	if m.index == nil {
		m.index, m.distinct = map[string]int{}, map[string]struct{}{}
	}
	n, ok := m.index[key]
	if !ok {
		_, seen := m.distinct[value]
		if len(m.index) == maxMaskedPlaces || !carried && !seen && len(m.distinct) == maxMaskedValues {
			m.overflow()
			m.count(key, value, carried)
			*h.Token = model.MaskUnverifiable
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

// maskKey identifies a hidden value at its place (key) and the value alone
// (value; "" for a carried token). A value is keyed as cdkd spelled it
// (canonical JSON, which the hash reads, costs; cdkd spells one value one
// way), a carried token by itself: distinct tokens at a place are distinct
// values.
func maskKey(h redact.Hidden) (key, value string, carried bool) {
	if *h.Token != "" {
		return "t\x00" + placeKey(h.Place) + "\x00" + string(*h.Token), "", true
	}
	return "v\x00" + placeKey(h.Place) + "\x00" + string(h.Original.Raw), string(h.Original.Raw), false
}

// count counts a place and its value past the bound.
func (m *maskSet) count(key, value string, carried bool) {
	m.places[sha256.Sum256([]byte(key))] = struct{}{}
	if !carried {
		m.valuesSeen[sha256.Sum256([]byte(value))] = struct{}{}
	}
}

// overflow makes every token unverifiable and keeps nothing more than the
// counts of places and distinct values.
func (m *maskSet) overflow() {
	if !m.over {
		m.places = make(map[[sha256.Size]byte]struct{}, len(m.index))
		m.valuesSeen = make(map[[sha256.Size]byte]struct{}, len(m.distinct))
		for k := range m.index {
			m.places[sha256.Sum256([]byte(k))] = struct{}{}
		}
		for v := range m.distinct {
			m.valuesSeen[sha256.Sum256([]byte(v))] = struct{}{}
		}
	}
	m.over = true
	for _, toks := range [][]*model.MaskToken{m.tokens, m.carried} {
		for _, tok := range toks {
			*tok = model.MaskUnverifiable
		}
	}
	m.tokens, m.carried, m.items, m.values, m.index, m.distinct, m.at = nil, nil, nil, nil, nil, nil, nil
}

// overBound says which bound the change set is past, with the count, and
// why so many.
func (m *maskSet) overBound(haveAssembly bool) string {
	atLeast := ""
	if m.atLeast {
		atLeast = "at least "
	}
	var why string
	if len(m.valuesSeen) > maxMaskedValues {
		why = fmt.Sprintf("the change set hides %s%d distinct values, more than the %d cdkd-action fingerprints into the digest in one run (about a minute of hashing on a 2-core runner)", atLeast, len(m.valuesSeen), maxMaskedValues)
	} else {
		why = fmt.Sprintf("the change set hides values at %s%d places, more than the %d cdkd-action fingerprints into the digest", atLeast, len(m.places), maxMaskedPlaces)
	}
	if !haveAssembly {
		return why + "; without the cloud assembly every value is hidden, its position unknown"
	}
	return why + "; with the cloud assembly only secret positions are hidden, so this many are secret values that change: deploy them in smaller change sets (the stacks input, or several pull requests)"
}

// fillMasks fingerprints every hidden value into its mask token. Past
// maxMaskedValues distinct values, or when hashing fails, every token is
// model.MaskUnverifiable and the sentence returned says why (a deploy of
// such a change set is refused); "" when every token carries a fingerprint.
func (r *Env) fillMasks(ctx context.Context, m *maskSet) string {
	if m.over {
		return r.unverifiable(m, m.overBound(r.asm != nil))
	}
	if len(m.tokens) == 0 && len(m.carried) == 0 {
		return ""
	}
	// Without the key, tokens a shard carries cannot be vouched for either:
	// the review would name no key for them.
	hasher, err := r.maskHasher(ctx)
	if err != nil {
		return r.unverifiable(m, err.Error()) // it says why there is no key
	}
	if len(m.tokens) == 0 {
		return ""
	}
	for i := range m.items {
		m.items[i].Value = model.CanonicalJSON(m.values[i])
	}
	fps, err := hasher.All(ctx, m.items)
	if err != nil {
		return r.unverifiable(m, "the values behind the masks could not be fingerprinted: "+err.Error())
	}
	for i, tok := range m.tokens {
		*tok = model.FingerprintToken(fps[m.at[i]].Hash)
	}
	return ""
}

// unverifiable marks every hidden value unverifiable and returns why.
func (r *Env) unverifiable(m *maskSet, why string) string {
	m.overflow()
	return r.set.OneLine(why)
}

// unverifiableNote is what a diff's report says when the values behind its
// masks were not fingerprinted; why ends with what to do about it.
func unverifiableNote(why string) string {
	return fmt.Sprintf("The values behind the masks cannot be verified, so a deploy of this change set is refused (%s): %s", ReasonDiffUnverifiable, why)
}

// placePosition salts a hidden value's fingerprint by where it was.
func placePosition(p redact.Place) fingerprint.Position {
	if p.Output {
		return fingerprint.Position{Stack: p.Stack, Region: p.Region, Kind: fingerprint.KindOutput, Output: p.Name, Path: p.Path}
	}
	return fingerprint.Position{Stack: p.Stack, Region: p.Region, Kind: fingerprint.KindResource, LogicalID: p.Name, Path: p.Path}
}

func placeKey(p redact.Place) string {
	kind := "r"
	if p.Output {
		kind = "o"
	}
	return strings.Join([]string{p.Stack, p.Region, kind, p.Name, p.Path}, "\x00")
}
