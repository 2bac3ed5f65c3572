package config

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// validateFingerprints checks the fingerprint inputs: the object must live
// outside cdkd's own prefix, so cdkd never reads, lists or deletes it, and
// a key must be at least 32 random bytes (a passphrase is refused).
func (c Config) validateFingerprints() error {
	p := c.FingerprintPrefix
	if p == "" {
		return bad("fingerprint-prefix", "expected a key prefix such as cdkd-action, got an empty value")
	}
	state := strings.Trim(c.StatePrefix, "/")
	if p == state || strings.HasPrefix(p+"/", state+"/") {
		return bad("fingerprint-prefix", "expected a prefix outside state-prefix %q (cdkd owns everything under it), got %q", state, p)
	}
	if strings.ContainsAny(p, "\r\n") || strings.Contains("/"+p+"/", "/../") {
		return bad("fingerprint-prefix", "expected a plain key prefix, got %q", p)
	}
	if c.FingerprintKey != "" {
		// The error never quotes the key.
		if _, err := fingerprint.ParseKey(c.FingerprintKey); err != nil {
			return bad("fingerprint-key", "%v", err)
		}
	}
	return nil
}
