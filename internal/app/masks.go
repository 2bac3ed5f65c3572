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

// maxMaskedValues bounds the distinct hidden values (a value at a place) a
// run fingerprints into the digest's mask tokens. One Argon2id hash (the
// default parameters) takes about 50 ms of one core, and a run hashes on
// every core, so 2,400 is about a minute on a 2-core runner: room for 1,200
// changed NoEcho positions (each hides its old and its new value). A diff
// with no cloud assembly hides every value and can hold many more.
const maxMaskedValues = 2400

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
// for fillMasks: each distinct value at each place once, up to
// maxMaskedValues; past that every token is unverifiable at once, and
// nothing more is kept. Tokens a shard's report carries count as the
// distinct values they stand for, so an aggregate of shards crosses the
// bound where one run over every stack does.
type maskSet struct {
	tokens  []*model.MaskToken // to fill
	at      []int              // tokens[i]'s item
	items   []fingerprint.Item
	values  []model.Value      // items[i]'s value; hashed as canonical JSON
	carried []*model.MaskToken // set already
	index   map[string]int
	over    bool
	// past the bound: a digest of each distinct value seen, only to say
	// how many there were; atLeast when a shard past the bound hides how
	// many it saw.
	counted map[[sha256.Size]byte]struct{}
	atLeast bool
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
	key, carried := maskKey(h)
	if m.over {
		m.counted[sha256.Sum256([]byte(key))] = struct{}{}
		*h.Token = model.MaskUnverifiable
		return
	}
	if m.index == nil {
		m.index = map[string]int{}
	}
	n, ok := m.index[key]
	if !ok {
		if len(m.index) == maxMaskedValues {
			m.overflow()
			m.counted[sha256.Sum256([]byte(key))] = struct{}{}
			*h.Token = model.MaskUnverifiable
			return
		}
		n = len(m.items)
		m.index[key] = n
		if !carried {
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

// maskKey identifies a hidden value at its place. A value is keyed as cdkd
// spelled it (canonical JSON, which the hash reads, costs; cdkd spells one
// value one way), a carried token by itself: distinct tokens at a place are
// distinct values.
func maskKey(h redact.Hidden) (key string, carried bool) {
	if *h.Token != "" {
		return "t\x00" + placeKey(h.Place) + "\x00" + string(*h.Token), true
	}
	return "v\x00" + placeKey(h.Place) + "\x00" + string(h.Original.Raw), false
}

// overflow makes every token unverifiable and keeps nothing more than the
// count of distinct values.
func (m *maskSet) overflow() {
	if !m.over {
		m.counted = make(map[[sha256.Size]byte]struct{}, len(m.index))
		for k := range m.index {
			m.counted[sha256.Sum256([]byte(k))] = struct{}{}
		}
	}
	m.over = true
	for _, toks := range [][]*model.MaskToken{m.tokens, m.carried} {
		for _, tok := range toks {
			*tok = model.MaskUnverifiable
		}
	}
	m.tokens, m.carried, m.items, m.values, m.index, m.at = nil, nil, nil, nil, nil, nil
}

// overBound says how many distinct values the change set hides, past the
// bound, and why so many.
func (m *maskSet) overBound(haveAssembly bool) string {
	n := fmt.Sprintf("%d", len(m.counted))
	if m.atLeast {
		n = "at least " + n
	}
	why := fmt.Sprintf("the change set hides %s distinct values (a value at a place), more than the %d cdkd-action fingerprints into the digest (about a minute of hashing on a 2-core runner)", n, maxMaskedValues)
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
