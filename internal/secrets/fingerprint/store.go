package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
)

// DefaultPrefix is the fingerprint-prefix input's default: outside cdkd's
// own prefix, so cdkd never reads or lists the object.
const DefaultPrefix = "cdkd-action"

// ObjectKey is where a stack's record lives in the state bucket.
func ObjectKey(prefix, stack, region string) string {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return path.Join(prefix, stack, region, "fingerprints.json")
}

// ErrConflict is returned by ObjectStore.Put when the object changed since
// it was read (the condition failed).
var ErrConflict = errors.New("the object changed since it was read")

// ObjectStore is the bucket, narrowed to conditional reads and writes.
type ObjectStore interface {
	// Get returns the object and its ETag; nil, "", nil when it does not
	// exist.
	Get(ctx context.Context, key string) (body []byte, etag string, err error)
	// Put writes the object only if its ETag is still ifMatch, or, when
	// ifMatch is "", only if it does not exist yet. A failed condition
	// returns an error wrapping ErrConflict.
	Put(ctx context.Context, key string, body []byte, ifMatch string) error
}

// Load reads a stack's record; nil, nil when none was written yet.
func Load(ctx context.Context, store ObjectStore, key string) (*Record, error) {
	rec, _, err := load(ctx, store, key)
	return rec, err
}

func load(ctx context.Context, store ObjectStore, key string) (*Record, string, error) {
	raw, etag, err := store.Get(ctx, key)
	if err != nil {
		return nil, "", fmt.Errorf("read fingerprints %s: %w", key, err)
	}
	if raw == nil {
		return nil, "", nil
	}
	rec, err := Decode(raw)
	if err != nil {
		return nil, etag, fmt.Errorf("read fingerprints %s: %w", key, err)
	}
	return rec, etag, nil
}

// MaxAttempts bounds Save's read-merge-write cycles.
const MaxAttempts = 5

// Save writes updates' positions into the stored record: it reads the
// record, merges per position (updates win, other positions are kept) and
// writes it back on the condition that nobody wrote in between. On a
// conflict it reads again and retries, at most MaxAttempts times. An
// object that cannot be decoded is replaced, since it cannot be merged.
func Save(ctx context.Context, store ObjectStore, key string, updates *Record) error {
	var lastErr error
	for range MaxAttempts {
		base, etag, err := load(ctx, store, key)
		if err != nil && etag == "" {
			return err
		}
		body, err := Merge(base, updates).Encode()
		if err != nil {
			return err
		}
		err = store.Put(ctx, key, body, etag)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			return fmt.Errorf("write fingerprints %s: %w", key, err)
		}
		lastErr = err
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("write fingerprints %s: gave up after %d attempts: %w", key, MaxAttempts, lastErr)
}
