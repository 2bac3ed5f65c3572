package app

import (
	"context"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/fingerprints"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// checkFingerprintKey refuses a fingerprint-key input that is not at
// least 32 random bytes (fingerprint.ParseKey), in one sentence that never
// quotes the key.
func checkFingerprintKey(cfg config.Config) error {
	if cfg.FingerprintKey == "" {
		return nil
	}
	if _, err := fingerprint.ParseKey(cfg.FingerprintKey); err != nil {
		return &config.InputError{Input: "fingerprint-key", Msg: err.Error()}
	}
	return nil
}

// learnKey reads (or creates) the fingerprint key when the command keys
// its hidden values (see session.Session.LearnKey).
func (e *Env) learnKey(ctx context.Context) {
	if e.keysTokens() {
		e.fingerprints().Key(ctx)
	}
}

// keysTokens reports whether the command fingerprints its hidden values
// into tokens (the table's keys: the digest of a diff, an aggregate of
// diffs, a deploy's gate).
func (e *Env) keysTokens() bool {
	cmd, ok := lookup(e.cfg.Command)
	return ok && cmd.keys(e.cfg)
}

// fingerprints is the run's fingerprints (see parts.Parts.Fingerprints).
func (e *Env) fingerprints() *fingerprints.Run { return e.parts.Fingerprints() }
