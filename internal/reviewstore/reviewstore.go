// Package reviewstore keeps a reviewed change set that does not fit in the
// diff comment's hidden line in the state bucket, content-addressed by its
// digest: <fingerprint-prefix>/reviews/<digest>.json.gz.
//
// The object is written once (a conditional put that only creates), never
// replaced, and read back only through Load, which checks that it hashes to
// the digest it is named by: whoever can write the bucket can delete the
// object (the deploy then refuses) but cannot swap it for another change
// set. The diff's check run records that the change set was stored, so the
// gate knows to look for it.
package reviewstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"strings"
	"syscall"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// Key is where the change set with digest lives under prefix (the
// fingerprint-prefix input).
func Key(prefix, digest string) string {
	return path.Join(Dir(prefix), digest+".json.gz")
}

// Dir is the folder of the stored change sets: what the IAM policies name.
func Dir(prefix string) string {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		prefix = fingerprint.DefaultPrefix
	}
	return path.Join(prefix, "reviews")
}

// ErrNotFound means no change set is stored under the digest.
var ErrNotFound = errors.New("no reviewed change set is stored under its digest")

// ErrNotTheChangeSet means the object stored under a digest is not a
// change set with that digest: it was replaced.
var ErrNotTheChangeSet = errors.New("the object stored under the digest is not the change set with that digest")

// saveAttempts bounds the conditional writes Save sends when another
// write to the same key is in flight (S3's 409 ConditionalRequestConflict).
const saveAttempts = 4

// Save stores d (redacted, sorted) under its digest and returns the key.
// An object already there (an earlier run of the same change set) is
// kept when it is the same change set; anything else is an error. A
// conditional write that conflicted with another in flight (409) and left
// nothing there is sent again, as the fingerprint key's creation does.
func Save(ctx context.Context, store fingerprint.ObjectStore, prefix string, d model.Diff) (string, error) {
	digest := d.Digest()
	key := Key(prefix, digest)
	body, err := model.EncodeChangeSet(d)
	if err != nil {
		return key, err
	}
	for attempt := 1; ; attempt++ {
		err = store.Put(ctx, key, body, "")
		if err == nil {
			return key, nil
		}
		if !errors.Is(err, fingerprint.ErrConflict) {
			return key, fmt.Errorf("store the reviewed change set at %s: %w", key, err)
		}
		have, _, gerr := store.Get(ctx, key)
		switch {
		case gerr != nil:
			return key, fmt.Errorf("store the reviewed change set at %s: the write conflicted with another, and what is there could not be read back: %w", key, gerr)
		case have == nil && attempt < saveAttempts:
			// Another conditional write was in flight and nothing is
			// there (yet): write again, as fingerprint.LoadOrCreateKey
			// does.
			continue
		case have == nil:
			return key, fmt.Errorf("store the reviewed change set at %s: %d writes conflicted with other writes in flight, and none is there: %w", key, attempt, err)
		case bytes.Equal(have, body):
			return key, nil
		}
		if _, err := model.DecodeWholeChangeSet(have, digest); err != nil {
			return key, fmt.Errorf("store the reviewed change set at %s: another object is there (%v); delete it and run the diff again", key, err)
		}
		return key, nil
	}
}

// Remedy is what to do about err, a failure to write or read a stored
// change set at objects (a bucket and key, or a folder), by the job named
// (diff or deploy): a permission the job's role lacks is named as one, a
// connection cut or timed out as a network fault (no permission is
// missing), anything else is left to the error ("").
func Remedy(err error, job, actions, objects string) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, awsx.ErrAccessDenied):
		return fmt.Sprintf("the %s job's role needs %s on %s", job, actions, objects)
	case IsNetworkFault(err):
		return "the connection to S3 was cut off or timed out: a network fault, not a missing permission; re-run the " + job + " job"
	}
	return ""
}

// IsNetworkFault reports an error of the connection rather than of S3's
// answer: a body cut off part-way, a reset, a refused connection, a
// timeout.
func IsNetworkFault(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne)
}

// Load reads the change set stored under digest and checks that it hashes
// to it.
func Load(ctx context.Context, store fingerprint.ObjectStore, prefix, digest string) (*model.ChangeSet, error) {
	key := Key(prefix, digest)
	body, _, err := store.Get(ctx, key)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read the reviewed change set at %s: %w", key, err)
	case body == nil:
		return nil, fmt.Errorf("%w (%s)", ErrNotFound, key)
	}
	cs, err := model.DecodeWholeChangeSet(body, digest)
	if err != nil {
		return nil, fmt.Errorf("%w (%s: %v)", ErrNotTheChangeSet, key, err)
	}
	return cs, nil
}
