package fingerprint

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Every fingerprint is keyed: the value with HMAC-SHA256 and the salt
// with the key too, so whoever lacks the key can test no guess, and a
// table computed for one position of one repository serves nothing. The
// key is the fingerprint-key input, or a random key the action keeps in the
// state bucket (LoadOrCreateKey).

// KeySize is the size of a fingerprint key: 32 random bytes.
const KeySize = 32

// KeyHint says how to make a key, for messages.
const KeyHint = "make one with `openssl rand -base64 32` and store it as a repository secret"

// ParseKey reads the fingerprint-key input: DecodeKey, and text that
// does not look generated is refused, since a passphrase is not a key
// (base64 lacking upper case, lower case or digits; hex lacking digits or
// letters: 32 random bytes have all of them but for about one key in two
// thousand, which is then refused like a passphrase and made again).
func ParseKey(s string) ([]byte, error) {
	b, err := DecodeKey(s)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if isHex(s) && !(strings.ContainsAny(s, "0123456789") && strings.ContainsAny(strings.ToLower(s), "abcdef")) ||
		!isHex(s) && !mixed(s) {
		return nil, keyError("got text that does not look random")
	}
	return b, nil
}

// DecodeKey decodes a key written as hex or base64 (standard or URL-safe,
// padded or not) and checks that it holds at least KeySize bytes.
func DecodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, keyError("got an empty value")
	}
	if isHex(s) {
		b, err := hex.DecodeString(s)
		if err == nil && len(b) >= KeySize {
			return b, nil
		}
		return nil, keyError(fmt.Sprintf("got %d bytes", len(s)/2))
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) < KeySize {
				return nil, keyError(fmt.Sprintf("got %d bytes", len(b)))
			}
			return b, nil
		}
	}
	return nil, keyError("got text that is neither hex nor base64")
}

// keyError says what a key must be and how to make one.
func keyError(got string) error {
	return fmt.Errorf("expected at least %d random bytes written as hex or base64 (a passphrase is not a key), %s; %s", KeySize, got, KeyHint)
}

func isHex(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// mixed reports whether s has upper case, lower case and digits: what 43
// or more random base64 characters have but for one chance in a thousand.
func mixed(s string) bool {
	var upper, lower, digit bool
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// KeyObjectKey is where the action keeps its own key in the state bucket.
func KeyObjectKey(prefix string) string {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return path.Join(prefix, "key")
}

// LoadOrCreateKey reads the key the object holds (base64, as ParseKey
// reads it). When there is none it makes one of KeySize bytes from random
// and writes it only if the object still does not exist (If-None-Match):
// two runs that create it at once end with the one that was written
// first, which both then use. created says this run wrote it.
func LoadOrCreateKey(ctx context.Context, store ObjectStore, key string, random io.Reader) (k []byte, created bool, err error) {
	for range 2 {
		body, _, err := store.Get(ctx, key)
		if err != nil {
			return nil, false, fmt.Errorf("read the fingerprint key %s: %w", key, err)
		}
		if body != nil {
			// Made by a machine (this action, or openssl by hand): only
			// its size is checked.
			k, err := DecodeKey(string(body))
			if err != nil {
				return nil, false, fmt.Errorf("read the fingerprint key %s: %w", key, err)
			}
			return k, false, nil
		}
		fresh := make([]byte, KeySize)
		if _, err := io.ReadFull(random, fresh); err != nil {
			return nil, false, fmt.Errorf("make a fingerprint key: %w", err)
		}
		err = store.Put(ctx, key, []byte(base64.StdEncoding.EncodeToString(fresh)+"\n"), "")
		if err == nil {
			return fresh, true, nil
		}
		if !errors.Is(err, ErrConflict) {
			return nil, false, fmt.Errorf("create the fingerprint key %s: %w", key, err)
		}
		// Another run created it in between: read theirs.
	}
	return nil, false, fmt.Errorf("create the fingerprint key %s: it was created and then could not be read", key)
}

// keyIDLabel is what the key id is an HMAC of.
const keyIDLabel = "cdkd-action fingerprint key id v2"

// keyID identifies a key: an HMAC of a fixed label under the key. It
// tells keys apart and, the key being KeySize random bytes (ParseKey),
// gives nothing to test a guess against: not at the key, and not at any
// value, which the key hides.
func keyID(key []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(keyIDLabel))
	return "k2:" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
}
