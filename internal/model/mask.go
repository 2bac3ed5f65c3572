package model

import (
	"bytes"
	"strings"
)

// MaskToken stands, in the change set, for a value redaction hid (masked at
// a secret position, or a secret redacted inside it): the salted Argon2id
// fingerprint of the value as cdkd printed it, made before the value was
// replaced. The digest covers the token, not the mask, so any change behind
// the mask changes the digest, and a literal "***" (no token) is not a
// masked value. It never holds the value.
type MaskToken string

// maskTokenPrefix starts a fingerprint token: "fp1:" and the hash, base64.
const maskTokenPrefix = "fp1:"

// MaskUnverifiable is the token of a hidden value that was not fingerprinted
// (the change set hides more distinct values than a run fingerprints): a
// change set holding one cannot be verified, and the deploy gate refuses it.
const MaskUnverifiable MaskToken = "unverifiable"

// FingerprintToken is the token of a value whose fingerprint hash is hash.
func FingerprintToken(hash string) MaskToken { return MaskToken(maskTokenPrefix + hash) }

// Fingerprinted reports a token that carries a fingerprint.
func (t MaskToken) Fingerprinted() bool { return strings.HasPrefix(string(t), maskTokenPrefix) }

// MaskCounts counts the mask tokens of a change set.
type MaskCounts struct {
	// Tokens is every hidden value that carries a token.
	Tokens int
	// Unverifiable is how many of them were not fingerprinted.
	Unverifiable int
}

// Masks counts the change set's mask tokens, nested stacks included.
func (d Diff) Masks() MaskCounts {
	var c MaskCounts
	add := func(ts ...MaskToken) {
		for _, t := range ts {
			switch {
			case t == "":
			case t.Fingerprinted():
				c.Tokens++
			default:
				c.Tokens++
				c.Unverifiable++
			}
		}
	}
	d.Walk(func(_ string, s StackDiff) {
		for _, ch := range s.Changes {
			for _, p := range ch.PropertyChanges {
				add(p.OldMask, p.NewMask)
			}
			for _, a := range ch.AttributeChanges {
				add(a.OldMask, a.NewMask)
			}
		}
		for _, o := range s.OutputChanges {
			add(o.OldMask, o.NewMask)
		}
	})
	return c
}

// CanonicalJSON is v's JSON with sorted object keys and exact numbers, the
// spelling the digest reads: what a hidden value is fingerprinted as, so
// cdkd's key order does not change its token.
func CanonicalJSON(v Value) string {
	// Fast path: a plain string without escapes is canonical already.
	if _, ok := plainString(v.Raw); ok {
		return string(bytes.TrimSpace(v.Raw))
	}
	return string(canonicalValue(v).Raw)
}
