package model

import (
	"bytes"
	"strings"
)

// HiddenToken stands, in the change set, for a value redaction hid (at a
// secret position, or a secret redacted inside it): the salted Argon2id
// fingerprint of the value as cdkd printed it, made before the value was
// replaced. The digest covers the token, not the "***", so any change
// behind the "***" changes the digest, and a literal "***" (no token) is
// not a hidden value. It never holds the value. (docs/secrets.md: the
// runner masks, redaction writes "***", the digest reads hidden-value
// tokens; the JSON keeps its older names, oldMask and newMask.)
type HiddenToken string

// hiddenTokenPrefix starts a fingerprint token: "fp1:" and the hash, base64.
const hiddenTokenPrefix = "fp1:"

// TokenUnverifiable is the token of a hidden value that was not fingerprinted
// (the change set hides more distinct values than a run fingerprints): a
// change set holding one cannot be verified, and the deploy gate refuses it.
const TokenUnverifiable HiddenToken = "unverifiable"

// FingerprintToken is the token of a value whose fingerprint hash is hash.
func FingerprintToken(hash string) HiddenToken { return HiddenToken(hiddenTokenPrefix + hash) }

// Fingerprinted reports a token that carries a fingerprint.
func (t HiddenToken) Fingerprinted() bool { return strings.HasPrefix(string(t), hiddenTokenPrefix) }

// TokenCounts counts the hidden-value tokens of a change set.
type TokenCounts struct {
	// Tokens is every hidden value that carries a token.
	Tokens int
	// Unverifiable is how many of them were not fingerprinted.
	Unverifiable int
}

// HiddenTokens counts the change set's hidden-value tokens, nested stacks
// included.
func (d Diff) HiddenTokens() TokenCounts {
	var c TokenCounts
	add := func(ts ...HiddenToken) {
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
				add(p.OldToken, p.NewToken)
			}
			for _, a := range ch.AttributeChanges {
				add(a.OldToken, a.NewToken)
			}
		}
		for _, o := range s.OutputChanges {
			add(o.OldToken, o.NewToken)
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
