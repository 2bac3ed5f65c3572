package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// maxMaskedValues bounds the distinct hidden values (a value at a place) a
// run fingerprints into the digest's mask tokens. One Argon2id hash takes
// tens of milliseconds, so 500 is under a minute on a small runner; a diff
// with no cloud assembly hides every value and can hold thousands.
const maxMaskedValues = 500

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
}

// addAll adds what the redaction stage hid, in its order.
func (m *maskSet) addAll(hidden []redact.Hidden) {
	for _, h := range hidden {
		m.add(h)
	}
}

// add adds one hidden value.
func (m *maskSet) add(h redact.Hidden) {
	switch {
	case m.over:
		*h.Token = model.MaskUnverifiable
		return
	case *h.Token == model.MaskUnverifiable:
		m.overflow() // a shard was past the bound: so is the whole
		return
	}
	if m.index == nil {
		m.index = map[string]int{}
	}
	carried := *h.Token != ""
	// A value is keyed as cdkd spelled it (canonical JSON, which the hash
	// reads, costs; cdkd spells one value one way), a carried token by
	// itself: distinct tokens at a place are distinct values.
	var key string
	if carried {
		key = "t\x00" + placeKey(h.Place) + "\x00" + string(*h.Token)
	} else {
		key = "v\x00" + placeKey(h.Place) + "\x00" + string(h.Original.Raw)
	}
	n, ok := m.index[key]
	if !ok {
		if len(m.index) == maxMaskedValues {
			m.overflow()
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

// overflow makes every token unverifiable and keeps nothing more.
func (m *maskSet) overflow() {
	m.over = true
	for _, toks := range [][]*model.MaskToken{m.tokens, m.carried} {
		for _, tok := range toks {
			*tok = model.MaskUnverifiable
		}
	}
	m.tokens, m.carried, m.items, m.values, m.index, m.at = nil, nil, nil, nil, nil, nil
}

// fillMasks fingerprints every hidden value into its mask token. Past
// maxMaskedValues distinct values, or when hashing fails, every token is
// model.MaskUnverifiable and the sentence returned says why (a deploy of
// such a change set is refused); "" when every token carries a fingerprint.
func (r *Env) fillMasks(ctx context.Context, m *maskSet) string {
	if m.over {
		return r.unverifiable(m, fmt.Sprintf("the change set hides more than %d distinct values (a diff without the cloud assembly hides every value, its position unknown), more than cdkd-action fingerprints into the digest. %s", maxMaskedValues, gate.AssemblyHint))
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
