package config

import "strings"

// validateFingerprints checks the fingerprint inputs: the object must live
// outside cdkd's own prefix, so cdkd never reads, lists or deletes it.
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
	// fingerprint-key itself is checked where keys are known
	// (app.checkFingerprintKey, fingerprint.ParseKey).
	return nil
}
