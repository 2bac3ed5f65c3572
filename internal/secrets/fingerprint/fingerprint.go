// Package fingerprint tells whether a secret value changed without storing
// or showing the value: it keeps a salted Argon2id hash (a fingerprint) of
// the value each secret position held at the last deploy.
//
// A position is where a NoEcho parameter or a resolved {{resolve:...}}
// reference fills a stack (stack, region, logical id and property path, or
// an output). Every fingerprint is keyed (the fingerprint-key input, or the
// action's own key in the state bucket: see key.go), so a reader of the
// fingerprints who lacks the key cannot test guesses at all. The key is
// identified by a key id, an HMAC of a fixed label under the key.
//
// A fingerprint (SchemeShared) is HMAC-SHA256 under the position's keyed
// salt over Argon2id(HMAC-SHA256(key, value)) with a keyed salt of its own:
// one value in two places gives two unrelated fingerprints, and the
// expensive Argon2id is paid once per distinct value, whatever the number
// of places it fills (one NoEcho parameter feeding a hundred resources
// costs one hash). The price: who holds the key tests a guess against every
// position for one Argon2id hash, not one per position. Fingerprints made
// before (SchemePerPosition: Argon2id under the position's salt) are still
// checked as they were made.
//
// The API, for the diff, the deploy and the deploy gate's digest:
//
//	h := fingerprint.NewHasher(fingerprint.Options{Key: key})
//	fp, err := h.Fingerprint(ctx, pos, value)    // Argon2id memoised per value
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
	"time"

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

// defaultHashCPU is the CPU time of one Argon2id hash with DefaultParams,
// measured on the idle 2-core AMD EPYC virtual machine of the performance
// figures (docs/performance.md): about 24 ms, so about 12 ms of wall time
// per distinct value with both cores hashing.
const defaultHashCPU = 24 * time.Millisecond

// HashCPU estimates the CPU time of one Argon2id hash with p: Argon2id
// fills and passes over its memory, so the measured cost of DefaultParams
// is scaled by memory times passes.
func (p Params) HashCPU() time.Duration {
	work := float64(p.MemoryKiB) * float64(p.Time)
	base := float64(DefaultParams.MemoryKiB) * float64(DefaultParams.Time)
	return time.Duration(float64(defaultHashCPU) * work / base)
}

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

// Scheme names how a fingerprint was computed from the value, the position
// and the key (see the package comment).
type Scheme int

const (
	// SchemePerPosition is Argon2id under the position's keyed salt: every
	// fingerprint recorded before SchemeShared, still checked.
	SchemePerPosition Scheme = 0
	// SchemeShared is the position's keyed HMAC over the value's Argon2id
	// hash under a keyed salt of its own: new fingerprints.
	SchemeShared Scheme = 1
)

// Fingerprint is one position's salted hash, with what is needed to check
// a value against it later. It never holds the value.
type Fingerprint struct {
	// Hash is the fingerprint, base64 (standard, unpadded).
	Hash   string `json:"hash"`
	Params Params `json:"params"`
	// Scheme is how Hash was computed; absent (0) in fingerprints recorded
	// before SchemeShared.
	Scheme Scheme `json:"scheme,omitempty"`
	// KeyID identifies the fingerprint-key the value was keyed with; ""
	// when there was none.
	KeyID string `json:"keyId,omitempty"`
}

// Equal compares two fingerprints in constant time over the hash.
func (f Fingerprint) Equal(o Fingerprint) bool {
	return f.Params == o.Params && f.Scheme == o.Scheme && f.KeyID == o.KeyID &&
		subtle.ConstantTimeCompare([]byte(f.Hash), []byte(o.Hash)) == 1
}

// Options configure a Hasher.
type Options struct {
	// Key is the fingerprint key: at least KeySize random bytes (ParseKey,
	// LoadOrCreateKey). It is required.
	Key []byte
	// Params default to DefaultParams.
	Params Params
	// Parallel bounds concurrent hashes; 0 means the CPU count.
	Parallel int
}

// Hasher makes fingerprints. It is safe for concurrent use; each distinct
// (value, params) is hashed with Argon2id once per Hasher (and, for a
// SchemePerPosition fingerprint, each distinct (value, position, params)).
type Hasher struct {
	params Params
	key    []byte
	keyID  string
	sem    chan struct{}
	// valueSalt is SchemeShared's Argon2id salt (see valueSalt).
	valueSalt [sha256.Size]byte

	mu   sync.Mutex
	memo map[memoKey]*memoEntry
}

type memoKey struct {
	// salt is the Argon2id salt: the position's keyed salt under
	// SchemePerPosition, the keyed value salt under SchemeShared.
	salt   [sha256.Size]byte
	value  string
	params Params
}

type memoEntry struct {
	once sync.Once
	hash []byte
}

// NewHasher returns a Hasher. It fails for a key shorter than KeySize and
// for invalid Params.
func NewHasher(o Options) (*Hasher, error) {
	if len(o.Key) < KeySize {
		return nil, fmt.Errorf("fingerprint key: expected at least %d bytes, got %d", KeySize, len(o.Key))
	}
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
	key := append([]byte(nil), o.Key...)
	return &Hasher{params: p, key: key, keyID: keyID(key), sem: make(chan struct{}, n), valueSalt: valueSalt(key), memo: map[memoKey]*memoEntry{}}, nil
}

// Params are the parameters new fingerprints are made with.
func (h *Hasher) Params() Params { return h.params }

// KeyID identifies the key (see keyID): it tells keys apart and reveals
// nothing testable about the key or any value.
func (h *Hasher) KeyID() string { return h.keyID }

// Fingerprint hashes value at pos with the Hasher's parameters.
func (h *Hasher) Fingerprint(ctx context.Context, pos Position, value string) (Fingerprint, error) {
	return h.fingerprintWith(ctx, pos, value, h.params, SchemeShared)
}

func (h *Hasher) fingerprintWith(ctx context.Context, pos Position, value string, p Params, scheme Scheme) (Fingerprint, error) {
	if err := p.Validate(); err != nil {
		return Fingerprint{}, fmt.Errorf("fingerprint parameters: %w", err)
	}
	posSalt := pos.salt(h.key)
	salt := posSalt
	switch scheme {
	case SchemePerPosition:
	case SchemeShared:
		salt = h.valueSalt
	default:
		return Fingerprint{}, fmt.Errorf("fingerprint scheme %d is not one this cdkd-action knows", scheme)
	}
	hash, err := h.argon2(ctx, memoKey{salt: salt, value: value, params: p})
	if err != nil {
		return Fingerprint{}, fmt.Errorf("fingerprint %s: %w", pos, err)
	}
	if scheme == SchemeShared {
		mac := hmac.New(sha256.New, posSalt[:])
		mac.Write(hash)
		hash = mac.Sum(nil)
	}
	return Fingerprint{Hash: base64.RawStdEncoding.EncodeToString(hash), Params: p, Scheme: scheme, KeyID: h.keyID}, nil
}

// argon2 is Argon2id over HMAC-SHA256(key, value) under k's salt, computed
// once per k however many callers ask at once, on at most Options.Parallel
// cores.
func (h *Hasher) argon2(ctx context.Context, k memoKey) ([]byte, error) {
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
		mac := hmac.New(sha256.New, h.key)
		mac.Write([]byte(k.value))
		e.hash = argon2.IDKey(mac.Sum(nil), k.salt[:], k.params.Time, k.params.MemoryKiB, k.params.Threads, k.params.KeyLen)
	})
	if err != nil {
		// Not memoised: the next call tries again.
		h.mu.Lock()
		delete(h.memo, k)
		h.mu.Unlock()
		return nil, err
	}
	if e.hash == nil {
		// Another caller's attempt was cancelled under the same key.
		return h.argon2(ctx, k)
	}
	return e.hash, nil
}

// Unhashed counts the Argon2id hashes All(items) would compute: the
// distinct values among items this Hasher has not hashed yet. Each costs
// Params().HashCPU(), so a caller can say how long a large batch will take
// before it starts.
func (h *Hasher) Unhashed(items []Item) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := make(map[string]bool, len(items))
	n := 0
	for _, it := range items {
		if seen[it.Value] {
			continue
		}
		seen[it.Value] = true
		if _, ok := h.memo[memoKey{salt: h.valueSalt, value: it.Value, params: h.params}]; !ok {
			n++
		}
	}
	return n
}

// Parallel is how many hashes the Hasher computes at once.
func (h *Hasher) Parallel() int { return cap(h.sem) }

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
	fp, err := h.fingerprintWith(ctx, pos, value, recorded.Params, recorded.Scheme)
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
	return "recorded " + KeyChange(recorded, current)
}

// KeyChange says how a recorded key id and the current one differ, for
// messages: "with key k2:… and this run's key is k2:…". A record from
// before every fingerprint was keyed has none.
func KeyChange(recorded, current string) string {
	if recorded == "" {
		return fmt.Sprintf("without a key (by an older cdkd-action), and this run's key is %s", current)
	}
	return fmt.Sprintf("with fingerprint key %s, and this run's key is %s", recorded, current)
}

// saltDomain separates these salts from any other use of the same inputs.
const saltDomain = "cdkd-action fingerprint salt v2"

// valueSaltDomain names the Argon2id salt of SchemeShared.
const valueSaltDomain = "cdkd-action fingerprint value salt v3"

// valueSalt is SchemeShared's Argon2id salt: an HMAC of a fixed label under
// the key, so no table computed in advance serves it.
func valueSalt(key []byte) [sha256.Size]byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(valueSaltDomain))
	var s [sha256.Size]byte
	copy(s[:], mac.Sum(nil))
	return s
}

// salt is HMAC-SHA256 under the key over the length-prefixed position
// fields: without the key, nobody can compute a position's salt, so no
// table can be computed in advance.
func (p Position) salt(key []byte) [sha256.Size]byte {
	hsh := hmac.New(sha256.New, key)
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
