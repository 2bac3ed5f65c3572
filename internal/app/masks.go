package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

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

// fillMasks fingerprints every hidden value into its mask token. Past
// redact.MaxTokenValues distinct values or redact.MaxTokenPlaces places, or when
// hashing fails, every token is model.MaskUnverifiable and the sentence
// returned says why (a deploy of such a change set is refused); "" when
// every token carries a fingerprint.
func (r *Env) fillMasks(ctx context.Context, m *redact.Tokens) string {
	if m.Over() {
		return r.unverifiable(m, m.OverBound(r.asm != nil))
	}
	if m.Empty() {
		return ""
	}
	// Without the key, tokens a shard carries cannot be vouched for either:
	// the review would name no key for them.
	hasher, err := r.maskHasher(ctx)
	if err != nil {
		return r.unverifiable(m, err.Error()) // it says why there is no key
	}
	items := m.Items()
	if len(items) == 0 {
		return ""
	}
	fps, err := hasher.All(ctx, items)
	if err != nil {
		return r.unverifiable(m, "the values behind the masks could not be fingerprinted: "+err.Error())
	}
	m.Fill(fps)
	return ""
}

// unverifiable marks every hidden value unverifiable and returns why.
func (r *Env) unverifiable(m *redact.Tokens, why string) string {
	m.Unverifiable()
	return r.set.OneLine(why)
}

// unverifiableNote is what a diff's report says when the values behind its
// masks were not fingerprinted; why ends with what to do about it.
func unverifiableNote(why string) string {
	return fmt.Sprintf("The values behind the masks cannot be verified, so a deploy of this change set is refused (%s): %s", reason.DiffUnverifiable, why)
}
