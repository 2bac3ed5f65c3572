package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// fingerprintKey is the key every fingerprint and mask token is keyed
// with: the fingerprint-key input, else the action's own random key in the
// state bucket (created by the first run that finds none). nil, and why,
// when there is none: then nothing is fingerprinted, every position is
// unknown and the values behind the masks cannot be verified.
func (r *Env) fingerprintKey(ctx context.Context) ([]byte, string) {
	r.fps.keyOnce.Do(func() {
		var created string
		r.fps.key, created, r.fps.keyWhy = r.loadFingerprintKey(ctx)
		if r.fps.key == nil {
			return
		}
		r.set.Add(base64.StdEncoding.EncodeToString(r.fps.key), "the fingerprint key")
		r.registerMasks()
		if created != "" {
			r.runner.Notice(fmt.Sprintf("Created the fingerprint key %s: 32 random bytes that key every fingerprint of this repository; whoever can read it can test guesses at the secrets behind the fingerprints.", created))
		}
	})
	return r.fps.key, r.fps.keyWhy
}

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

// keysMasks reports whether the command fingerprints the values behind
// its masks (the digest of a diff, an aggregate of diffs, a deploy's gate).
func (r *Env) keysMasks() bool {
	switch r.cfg.Command {
	case config.CommandDiff, config.CommandDeploy, config.CommandVerify:
		return true
	case config.CommandAggregate:
		return r.cfg.For != config.CommandDrift
	}
	return false
}

// loadFingerprintKey reads the key; created names the object when this
// run wrote it.
func (r *Env) loadFingerprintKey(ctx context.Context) (key []byte, created, why string) {
	switch {
	case !r.cfg.Fingerprints:
		return nil, "", "fingerprints is false, which turns every fingerprint off, the mask tokens of the digest included (leave it true for a gated deploy)"
	case r.cfg.FingerprintKey != "":
		k, err := fingerprint.ParseKey(r.cfg.FingerprintKey)
		if err != nil {
			return nil, "", "input fingerprint-key: " + err.Error()
		}
		return k, "", ""
	case r.offlineAWS() != "":
		return nil, "", "no fingerprint key: resolve-secrets is off in this local run, so the key in the state bucket was not read (pass --resolve-secrets, or a fingerprint key)"
	}
	bucket := r.stateBucket(ctx)
	if bucket == "" {
		return nil, "", "no fingerprint key: no state bucket is known to keep it in (set state-bucket, or fingerprint-key)"
	}
	at := fingerprint.KeyObjectKey(r.cfg.FingerprintPrefix)
	store, err := r.objectStore(ctx, bucket)
	if err != nil {
		return nil, "", fmt.Sprintf("no fingerprint key: the state bucket could not be reached to read s3://%s/%s: %v", bucket, at, err)
	}
	ctx, cancel := context.WithTimeout(ctx, fingerprintReadTimeout)
	defer cancel()
	k, made, err := fingerprint.LoadOrCreateKey(ctx, store, at, rand.Reader)
	if err != nil {
		return nil, "", fmt.Sprintf("no fingerprint key: the key in bucket %s could not be read or created (the role needs s3:GetObject on it, and s3:PutObject to create it once): %v", bucket, err)
	}
	if made {
		created = fmt.Sprintf("s3://%s/%s", bucket, at)
	}
	return k, created, ""
}
