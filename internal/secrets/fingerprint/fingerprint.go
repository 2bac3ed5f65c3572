// Package fingerprint tells whether a secret value changed without storing
// or showing the value: it keeps a salted Argon2id hash (a fingerprint) of
// the value each secret position held at the last deploy.
//
// A position is where a NoEcho parameter or a resolved {{resolve:...}}
// reference fills a stack (stack, region, logical id and property path, or
// an output). The position is the salt, so one value in two places gives
// two unrelated fingerprints and a reader cannot tell that they are equal.
// With a key (the fingerprint-key input) the value is first keyed with
// HMAC-SHA256, so a reader of the stored fingerprints cannot test guesses
// at all; the key is identified by a key id, a fingerprint of the key.
//
// The API, for the diff, the deploy and the deploy gate's digest:
//
//	h := fingerprint.NewHasher(fingerprint.Options{Key: key})
//	fp, err := h.Fingerprint(ctx, pos, value)    // memoised per (value, position)
//	fps, err := h.All(ctx, items)                // in parallel, up to the CPU count
//	st, why := h.Compare(ctx, recorded, pos, value) // changed / unchanged / unknown
//
// A Fingerprint carries its Params and KeyID, so the parameters can be
// raised later and a fingerprint made with another key is recognised as
// such (unknown), never as a change. Record is the stored object (one per
// stack and region); Save writes it with a conditional put and merges per
// position on a conflict.
package fingerprint

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Algorithm is the only algorithm Params may name.
const Algorithm = "argon2id"

// Params are the Argon2id cost parameters a fingerprint was made with.
type Params struct {
	Algorithm string `json:"alg"`
	// Version is Argon2's version number (0x13 = 19).
	Version   int    `json:"v"`
	MemoryKiB uint32 `json:"m"`
	Time      uint32 `json:"t"`
	Threads   uint8  `json:"p"`
	KeyLen    uint32 `json:"len"`
}

// DefaultParams are OWASP's recommended minimum for Argon2id: 19 MiB of
// memory, 2 passes, 1 lane.
var DefaultParams = Params{Algorithm: Algorithm, Version: argon2.Version, MemoryKiB: 19 * 1024, Time: 2, Threads: 1, KeyLen: 32}

// Upper bounds on parameters read from the bucket: the object is untrusted
// and a runner has finite memory and time.
const (
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 16
	maxThreads   = 16
)

// Validate says why params cannot be used, or nil.
func (p Params) Validate() error {
	switch {
	case p.Algorithm != Algorithm:
		return fmt.Errorf("algorithm %q is not %s", p.Algorithm, Algorithm)
	case p.Version != argon2.Version:
		return fmt.Errorf("argon2 version %d is not %d", p.Version, argon2.Version)
	case p.MemoryKiB < 8*uint32(max(p.Threads, 1)) || p.MemoryKiB > maxMemoryKiB:
		return fmt.Errorf("memory %d KiB is outside 8 KiB per lane to %d KiB", p.MemoryKiB, maxMemoryKiB)
	case p.Time < 1 || p.Time > maxTime:
		return fmt.Errorf("time %d is outside 1 to %d", p.Time, maxTime)
	case p.Threads < 1 || p.Threads > maxThreads:
		return fmt.Errorf("threads %d is outside 1 to %d", p.Threads, maxThreads)
	case p.KeyLen < 16 || p.KeyLen > 64:
		return fmt.Errorf("hash length %d is outside 16 to 64", p.KeyLen)
	}
	return nil
}

// Fingerprint is one position's salted hash, with what is needed to check
// a value against it later. It never holds the value.
type Fingerprint struct {
	// Hash is the Argon2id output, base64 (standard, unpadded).
	Hash   string `json:"hash"`
	Params Params `json:"params"`
	// KeyID identifies the fingerprint-key the value was keyed with; ""
	// when there was none.
	KeyID string `json:"keyId,omitempty"`
}

// Equal compares two fingerprints in constant time over the hash.
func (f Fingerprint) Equal(o Fingerprint) bool {
	return f.Params == o.Params && f.KeyID == o.KeyID &&
		subtle.ConstantTimeCompare([]byte(f.Hash), []byte(o.Hash)) == 1
}

// Options configure a Hasher.
type Options struct {
	// Key is the fingerprint-key input; "" hashes the value unkeyed.
	Key string
	// Params default to DefaultParams.
	Params Params
	// Parallel bounds concurrent hashes; 0 means the CPU count.
	Parallel int
}

// Hasher makes fingerprints. It is safe for concurrent use; each distinct
// (value, position, params) is hashed once per Hasher.
type Hasher struct {
	params Params
	key    []byte
	keyID  string
	sem    chan struct{}

	mu   sync.Mutex
	memo map[memoKey]*memoEntry
}

type memoKey struct {
	salt   [sha256.Size]byte
	value  string
	params Params
}

type memoEntry struct {
	once sync.Once
	hash string
}

// NewHasher returns a Hasher. It fails only for invalid Params.
func NewHasher(o Options) (*Hasher, error) {
	p := o.Params
	if p == (Params{}) {
		p = DefaultParams
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("fingerprint parameters: %w", err)
	}
	n := o.Parallel
	if n <= 0 {
		n = runtime.NumCPU()
	}
	h := &Hasher{params: p, sem: make(chan struct{}, n), memo: map[memoKey]*memoEntry{}}
	if o.Key != "" {
		h.key = []byte(o.Key)
		h.keyID = keyID(h.key)
	}
	return h, nil
}

// Params are the parameters new fingerprints are made with.
func (h *Hasher) Params() Params { return h.params }

// KeyID identifies the key ("" without one). It is an Argon2id hash of the
// key under a fixed salt, truncated: it tells keys apart and reveals
// nothing usable about the key.
func (h *Hasher) KeyID() string { return h.keyID }

func keyID(key []byte) string {
	salt := sha256.Sum256([]byte("cdkd-action fingerprint key id v1"))
	p := DefaultParams
	sum := argon2.IDKey(key, salt[:], p.Time, p.MemoryKiB, p.Threads, 32)
	return "k1:" + base64.RawURLEncoding.EncodeToString(sum[:12])
}

// Fingerprint hashes value at pos with the Hasher's parameters.
func (h *Hasher) Fingerprint(ctx context.Context, pos Position, value string) (Fingerprint, error) {
	return h.fingerprintWith(ctx, pos, value, h.params)
}

func (h *Hasher) fingerprintWith(ctx context.Context, pos Position, value string, p Params) (Fingerprint, error) {
	if err := p.Validate(); err != nil {
		return Fingerprint{}, fmt.Errorf("fingerprint parameters: %w", err)
	}
	k := memoKey{salt: pos.salt(), value: value, params: p}
	h.mu.Lock()
	e, ok := h.memo[k]
	if !ok {
		e = &memoEntry{}
		h.memo[k] = e
	}
	h.mu.Unlock()
	var err error
	e.once.Do(func() {
		select {
		case h.sem <- struct{}{}:
		case <-ctx.Done():
			err = ctx.Err()
			return
		}
		defer func() { <-h.sem }()
		e.hash = base64.RawStdEncoding.EncodeToString(h.hash(k.salt, value, p))
	})
	if err != nil {
		// Not memoised: the next call tries again.
		h.mu.Lock()
		delete(h.memo, k)
		h.mu.Unlock()
		return Fingerprint{}, fmt.Errorf("fingerprint %s: %w", pos, err)
	}
	if e.hash == "" {
		// Another caller's attempt was cancelled under the same key.
		return h.fingerprintWith(ctx, pos, value, p)
	}
	return Fingerprint{Hash: e.hash, Params: p, KeyID: h.keyID}, nil
}

// hash is Argon2id over the value, or over HMAC-SHA256(key, value) when a
// key is set.
func (h *Hasher) hash(salt [sha256.Size]byte, value string, p Params) []byte {
	input := []byte(value)
	if h.key != nil {
		mac := hmac.New(sha256.New, h.key)
		mac.Write(input)
		input = mac.Sum(nil)
	}
	return argon2.IDKey(input, salt[:], p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
}

// Item is one value to fingerprint at one position.
type Item struct {
	Position Position
	Value    string
}

// All fingerprints every item in parallel (bounded by Options.Parallel) and
// returns them in the items' order.
func (h *Hasher) All(ctx context.Context, items []Item) ([]Fingerprint, error) {
	out := make([]Fingerprint, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = h.Fingerprint(ctx, it.Position, it.Value)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Status is what a comparison found.
type Status string

const (
	// StatusChanged: the value differs from the one recorded at the last
	// deploy that applied it.
	StatusChanged Status = "changed"
	// StatusUnchanged: the value is the one recorded.
	StatusUnchanged Status = "unchanged"
	// StatusUnknown: nothing comparable is recorded (no fingerprint yet,
	// an unreadable object, another key, unusable parameters).
	StatusUnknown Status = "unknown"
)

// Compare checks value at pos against the recorded fingerprint, re-hashing
// with the recorded parameters. The reason says why a result is unknown.
func (h *Hasher) Compare(ctx context.Context, recorded *Fingerprint, pos Position, value string) (Status, string) {
	if recorded == nil {
		return StatusUnknown, "no fingerprint recorded yet"
	}
	if recorded.KeyID != h.keyID {
		return StatusUnknown, keyMismatch(recorded.KeyID, h.keyID)
	}
	fp, err := h.fingerprintWith(ctx, pos, value, recorded.Params)
	if err != nil {
		return StatusUnknown, "the recorded fingerprint cannot be checked: " + err.Error()
	}
	if fp.Equal(*recorded) {
		return StatusUnchanged, ""
	}
	return StatusChanged, ""
}

// keyMismatch says why fingerprints made with another key are unknown.
func keyMismatch(recorded, current string) string {
	switch {
	case recorded == "":
		return "recorded without fingerprint-key, and this run has one"
	case current == "":
		return fmt.Sprintf("recorded with fingerprint-key %s, and this run has none", recorded)
	}
	return fmt.Sprintf("recorded with fingerprint-key %s, and this run's key is %s", recorded, current)
}

// saltDomain separates these salts from any other use of the same inputs.
const saltDomain = "cdkd-action fingerprint salt v1"

// salt is SHA-256 over the length-prefixed position fields.
func (p Position) salt() [sha256.Size]byte {
	hsh := sha256.New()
	for _, f := range []string{saltDomain, p.Stack, p.Region, string(p.Kind), p.LogicalID, p.Output, p.Path} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		hsh.Write(n[:])
		hsh.Write([]byte(f))
	}
	var s [sha256.Size]byte
	copy(s[:], hsh.Sum(nil))
	return s
}
