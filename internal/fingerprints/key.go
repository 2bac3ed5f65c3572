package fingerprints

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// Key is the key every fingerprint and hidden-value token is keyed
// with: the fingerprint-key input, else the action's own random key in the
// state bucket (created by the first run that finds none). nil, and why,
// when there is none: then nothing is fingerprinted, every position is
// unknown and the hidden values cannot be verified.
func (f *Run) Key(ctx context.Context) ([]byte, string) {
	f.keyOnce.Do(func() {
		var created string
		f.key, created, f.keyWhy = f.loadKey(ctx)
		if f.key == nil {
			return
		}
		f.Secrets.Add(base64.StdEncoding.EncodeToString(f.key), "the fingerprint key")
		f.RegisterMasks()
		if created != "" {
			f.Notice(fmt.Sprintf("Created the fingerprint key %s: 32 random bytes that key every fingerprint of this repository; whoever can read it can test guesses at the secrets behind the fingerprints.", created))
		}
	})
	return f.key, f.keyWhy
}

// loadKey reads the key; created names the object when this
// run wrote it.
func (f *Run) loadKey(ctx context.Context) (key []byte, created, why string) {
	switch {
	case !f.On:
		return nil, "", "fingerprints is false, which turns every fingerprint off, the mask tokens of the digest included (leave it true for a gated deploy)"
	case f.KeyInput != "":
		k, err := fingerprint.ParseKey(f.KeyInput)
		if err != nil {
			return nil, "", "input fingerprint-key: " + err.Error()
		}
		return k, "", ""
	case f.Offline != "":
		return nil, "", "no fingerprint key: resolve-secrets is off in this local run, so the key in the state bucket was not read (pass --resolve-secrets, or a fingerprint key)"
	}
	bucket := f.Bucket(ctx)
	if bucket == "" {
		return nil, "", "no fingerprint key: no state bucket is known to keep it in (set state-bucket, or fingerprint-key)"
	}
	at := fingerprint.KeyObjectKey(f.Prefix)
	store, err := f.Objects(ctx, bucket)
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
