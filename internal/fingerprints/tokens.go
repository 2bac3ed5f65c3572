package fingerprints

import (
	"context"
	"errors"

	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// tokenHasher is the hasher of the hidden-value tokens: the fingerprints' own when
// they are on (one memo for both), else one with the same key. Without a
// fingerprint key there is none, and the error says why.
func (f *Run) tokenHasher(ctx context.Context) (*fingerprint.Hasher, error) {
	f.tokenOnce.Do(func() {
		if fp := f.Records(ctx); fp != nil && fp.Hasher != nil {
			f.tokens = fp.Hasher
			return
		}
		key, why := f.Key(ctx)
		if key == nil {
			f.tokenErr = errors.New(why)
			return
		}
		f.tokens, f.tokenErr = fingerprint.NewHasher(fingerprint.Options{Key: key, Params: f.Params})
	})
	return f.tokens, f.tokenErr
}

// TokenKeyID identifies the fingerprint key the hidden-value tokens are keyed with,
// "" without one: the review records it, and the deploy must match it.
func (f *Run) TokenKeyID(ctx context.Context) string {
	h, err := f.tokenHasher(ctx)
	if err != nil {
		return ""
	}
	return h.KeyID()
}

// FillTokens fingerprints every hidden value into its hidden-value token. Past
// redact.MaxTokenValues distinct values or redact.MaxTokenPlaces places, or when
// hashing fails, every token is model.TokenUnverifiable and the sentence
// returned says why (a deploy of such a change set is refused); "" when
// every token carries a fingerprint.
func (f *Run) FillTokens(ctx context.Context, m *redact.Tokens) string {
	if m.Over() {
		return f.Unverifiable(m, m.OverBound(f.Assembly() != nil))
	}
	if m.Empty() {
		return ""
	}
	// Without the key, tokens a shard carries cannot be vouched for either:
	// the review would name no key for them.
	hasher, err := f.tokenHasher(ctx)
	if err != nil {
		return f.Unverifiable(m, err.Error()) // it says why there is no key
	}
	items := m.Items()
	if len(items) == 0 {
		return ""
	}
	f.SayHashing(hasher, items)
	fps, err := hasher.All(ctx, items)
	if err != nil {
		return f.Unverifiable(m, "the hidden values could not be fingerprinted: "+err.Error())
	}
	m.Fill(fps)
	return ""
}

// Unverifiable marks every hidden value unverifiable and returns why.
func (f *Run) Unverifiable(m *redact.Tokens, why string) string {
	m.Unverifiable()
	return f.Secrets.OneLine(why)
}

// KeyIDField names the key id in the diff comment's hidden header.
const KeyIDField = "fingerprintKeyId"

// Header is what the diff comment's hidden header records about the
// fingerprints and the digest's hidden-value tokens: the key id, never the key.
func (f *Run) Header(ctx context.Context) map[string]string {
	id := f.TokenKeyID(ctx)
	if id == "" {
		return nil
	}
	return map[string]string{KeyIDField: id}
}
