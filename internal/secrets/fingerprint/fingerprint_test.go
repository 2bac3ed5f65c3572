package fingerprint

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// cheap keeps unit tests fast; the default parameters are tested apart.
var cheap = Params{Algorithm: Algorithm, Version: DefaultParams.Version, MemoryKiB: 64, Time: 1, Threads: 1, KeyLen: 32}

func pos(stack, id, path string) Position {
	return Position{Stack: stack, Region: "us-east-1", Kind: KindResource, LogicalID: id, Path: path}
}

// testKey is a KeySize key made from a name, so tests can tell keys apart.
func testKey(name string) []byte {
	k := sha256.Sum256([]byte(name))
	return k[:]
}

func hasher(t *testing.T, key string) *Hasher {
	t.Helper()
	h, err := NewHasher(Options{Key: testKey(key), Params: cheap})
	assert.NilError(t, err)
	return h
}

func TestFingerprintStableAndSaltedPerPosition(t *testing.T) {
	ctx := context.Background()
	a := pos("Api", "Db", "MasterUserPassword")
	fa1, err := hasher(t, "").Fingerprint(ctx, a, "hunter2-v1")
	assert.NilError(t, err)
	fa2, err := hasher(t, "").Fingerprint(ctx, a, "hunter2-v1")
	assert.NilError(t, err)
	assert.Assert(t, fa1.Equal(fa2), "same value, same position, new hasher: same fingerprint")

	tests := []struct {
		name  string
		pos   Position
		value string
		key   string
	}{
		{"another value", a, "hunter2-v2", ""},
		{"another stack", pos("Web", "Db", "MasterUserPassword"), "hunter2-v1", ""},
		{"another region", Position{Stack: "Api", Region: "eu-west-1", Kind: KindResource, LogicalID: "Db", Path: "MasterUserPassword"}, "hunter2-v1", ""},
		{"another resource", pos("Api", "Db2", "MasterUserPassword"), "hunter2-v1", ""},
		{"another path", pos("Api", "Db", "Password"), "hunter2-v1", ""},
		{"an output", Position{Stack: "Api", Region: "us-east-1", Kind: KindOutput, Output: "Db"}, "hunter2-v1", ""},
		{"with another key", a, "hunter2-v1", "key-two"},
	}
	seen := map[string]string{fa1.Hash: "baseline"}
	for _, tc := range tests {
		fp, err := hasher(t, tc.key).Fingerprint(ctx, tc.pos, tc.value)
		assert.NilError(t, err)
		if prev, dup := seen[fp.Hash]; dup {
			t.Errorf("%s gives the same hash as %s", tc.name, prev)
		}
		seen[fp.Hash] = tc.name
	}
}

func TestFingerprintRecordsParamsAndKeyID(t *testing.T) {
	ctx := context.Background()
	key := testKey("repo-secret-key")
	h, err := NewHasher(Options{Key: key})
	assert.NilError(t, err)
	fp, err := h.Fingerprint(ctx, pos("Api", "Db", "MasterUserPassword"), "hunter2-v1")
	assert.NilError(t, err)
	assert.DeepEqual(t, fp.Params, Params{Algorithm: "argon2id", Version: 19, MemoryKiB: 19456, Time: 2, Threads: 1, KeyLen: 32})
	assert.Assert(t, strings.HasPrefix(fp.KeyID, "k2:"), fp.KeyID)
	assert.Equal(t, fp.KeyID, h.KeyID())

	other, err := NewHasher(Options{Key: testKey("another-key")})
	assert.NilError(t, err)
	assert.Assert(t, other.KeyID() != h.KeyID())
	for _, short := range [][]byte{nil, []byte("changeme"), key[:KeySize-1]} {
		_, err := NewHasher(Options{Key: short})
		assert.ErrorContains(t, err, "expected at least 32 bytes", "a key of %d bytes", len(short))
	}
}

// The key id is an HMAC of a fixed label under the key: nothing about it
// can be computed without the key (it is not a function of the key alone
// that a guess could be run through cheaply and offline, as an unkeyed
// hash of the key would be, and it is the same for equal keys only).
func TestKeyIDIsAnHMACOfALabel(t *testing.T) {
	key := testKey("k")
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("cdkd-action fingerprint key id v2"))
	assert.Equal(t, keyID(key), "k2:"+base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12]))
}

// The salt involves the key: the same value at the same position gives
// unrelated fingerprints under two keys, so a table computed for a
// position (its names are public: CDK logical ids are deterministic)
// serves no repository.
func TestSaltInvolvesTheKey(t *testing.T) {
	p := pos("Api", "Db", "MasterUserPassword")
	assert.Assert(t, p.salt(testKey("a")) != p.salt(testKey("b")))
	a, err := hasher(t, "a").Fingerprint(context.Background(), p, "123456")
	assert.NilError(t, err)
	b, err := hasher(t, "b").Fingerprint(context.Background(), p, "123456")
	assert.NilError(t, err)
	assert.Assert(t, a.Hash != b.Hash)
}

func TestCompare(t *testing.T) {
	ctx := context.Background()
	p := pos("Api", "Db", "MasterUserPassword")
	keyed := hasher(t, "key-one")
	recorded, err := keyed.Fingerprint(ctx, p, "v1")
	assert.NilError(t, err)

	stronger := recorded
	stronger.Params.Time = 3 // recorded with other parameters: re-hashed with those
	strongerFP, err := keyed.fingerprintWith(ctx, p, "v1", stronger.Params, SchemeShared)
	assert.NilError(t, err)
	// Recorded before SchemeShared: checked as it was made.
	perPosition, err := keyed.fingerprintWith(ctx, p, "v1", cheap, SchemePerPosition)
	assert.NilError(t, err)
	assert.Assert(t, perPosition.Hash != recorded.Hash)
	unknownScheme := recorded
	unknownScheme.Scheme = 7

	bad := recorded
	bad.Params.MemoryKiB = 1 << 30

	tests := []struct {
		name     string
		h        *Hasher
		recorded *Fingerprint
		value    string
		want     Status
		why      string
	}{
		{"same value", keyed, &recorded, "v1", StatusUnchanged, ""},
		{"new value", keyed, &recorded, "v2", StatusChanged, ""},
		{"nothing recorded", keyed, nil, "v1", StatusUnknown, "no fingerprint recorded yet"},
		{"another key", hasher(t, "key-two"), &recorded, "v1", StatusUnknown, "this run's key is k2:"},
		{"recorded without a key", keyed, &Fingerprint{Hash: recorded.Hash, Params: recorded.Params}, "v1", StatusUnknown, "without a key (by an older cdkd-action)"},
		{"recorded params", keyed, &strongerFP, "v1", StatusUnchanged, ""},
		{"unusable params", keyed, &bad, "v1", StatusUnknown, "cannot be checked"},
		{"recorded per position, same value", keyed, &perPosition, "v1", StatusUnchanged, ""},
		{"recorded per position, new value", keyed, &perPosition, "v2", StatusChanged, ""},
		{"a scheme this version does not know", keyed, &unknownScheme, "v1", StatusUnknown, "scheme 7 is not one this cdkd-action knows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := tc.h.Compare(ctx, tc.recorded, p, tc.value)
			assert.Equal(t, got, tc.want)
			assert.Assert(t, is.Contains(why, tc.why))
		})
	}
}

// Argon2id runs once per distinct value, however many positions it fills
// and however many callers ask at once; the fingerprints of its positions
// still differ.
func TestMemoHashesOncePerValue(t *testing.T) {
	ctx := context.Background()
	h := hasher(t, "")
	hashes := make([]string, 8)
	var wg sync.WaitGroup
	for i := range hashes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fp, err := h.Fingerprint(ctx, pos("Api", fmt.Sprintf("Db%d", i%4), "MasterUserPassword"), "v1")
			assert.Check(t, err)
			hashes[i] = fp.Hash
		}()
	}
	wg.Wait()
	assert.Equal(t, len(h.memo), 1, "one Argon2id hash for one value in four places")
	assert.Equal(t, hashes[0], hashes[4], "same place, same fingerprint")
	assert.Assert(t, hashes[0] != hashes[1], "another place, another fingerprint")
	_, err := h.Fingerprint(ctx, pos("Api", "Db", "MasterUserPassword"), "v2")
	assert.NilError(t, err)
	assert.Equal(t, len(h.memo), 2)
}

func TestFingerprintCancelled(t *testing.T) {
	h, err := NewHasher(Options{Key: testKey(""), Params: cheap, Parallel: 1})
	assert.NilError(t, err)
	h.sem <- struct{}{} // every slot busy
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err = h.Fingerprint(ctx, pos("Api", "Db", "P"), "v1")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	<-h.sem
	_, err = h.Fingerprint(context.Background(), pos("Api", "Db", "P"), "v1")
	assert.NilError(t, err, "a cancelled attempt is not memoised")
}

// The stored object holds no value in any encoding the redactor knows.
func TestRecordHoldsNoValue(t *testing.T) {
	ctx := context.Background()
	values := []string{"hunter2-noecho-v1", "s3cr3t-pw-from-sm", `{"password":"json-field-secret"}`, "short"}
	set := secrets.NewSet()
	rec := NewRecord("Api", "us-east-1")
	for _, key := range []string{"", "fingerprint-key-value"} {
		h := hasher(t, key)
		set.Add(base64.StdEncoding.EncodeToString(testKey(key)), "key")
		set.Add(string(testKey(key)), "key")
		for i, v := range values {
			set.Add(v, "value")
			p := pos("Api", fmt.Sprintf("R%d", i), "Secret")
			fp, err := h.Fingerprint(ctx, p, v)
			assert.NilError(t, err)
			rec.Positions[p.Key()] = Entry{Position: p, Source: "parameter DbPassword", Fingerprint: fp}
		}
		rec.KeyID = h.KeyID()
		b, err := rec.Encode()
		assert.NilError(t, err)
		assert.Assert(t, !set.Contains(string(b)), "the object holds a value or the key:\n%s", b)
		for _, v := range values {
			assert.Assert(t, !strings.Contains(string(b), v))
		}
	}
}

func TestDecodeRoundTripAndStrict(t *testing.T) {
	rec := NewRecord("Api", "us-east-1")
	p := pos("Api", "Db", "MasterUserPassword")
	fp, err := hasher(t, "").Fingerprint(context.Background(), p, "v1")
	assert.NilError(t, err)
	rec.Positions[p.Key()] = Entry{Position: p, Fingerprint: fp}
	b, err := rec.Encode()
	assert.NilError(t, err)
	got, err := Decode(b)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, rec)
	assert.Assert(t, got.Lookup(p).Equal(fp))
	assert.Assert(t, got.Lookup(pos("Api", "Other", "X")) == nil)

	for name, raw := range map[string]string{
		"not JSON":         `{"version":1,`,
		"other version":    `{"version":2,"positions":{}}`,
		"unknown field":    `{"version":1,"value":"hunter2","positions":{}}`,
		"key mismatch":     `{"version":1,"positions":{"resource:A.B":{"position":{"stack":"s","region":"r","kind":"resource","logicalId":"C","path":"B"},"fingerprint":{"hash":"x","params":{}}}}}`,
		"a list, not JSON": `[]`,
	} {
		_, err := Decode([]byte(raw))
		assert.Assert(t, err != nil, name)
		assert.Assert(t, !strings.Contains(err.Error(), "hunter2"), name)
	}
}

func TestMerge(t *testing.T) {
	a, b, c := pos("Api", "A", "P"), pos("Api", "B", "P"), pos("Api", "C", "P")
	base := NewRecord("Api", "us-east-1")
	base.Positions[a.Key()] = Entry{Position: a, Fingerprint: Fingerprint{Hash: "old-a"}}
	base.Positions[b.Key()] = Entry{Position: b, Fingerprint: Fingerprint{Hash: "old-b"}}
	upd := NewRecord("Api", "us-east-1")
	upd.KeyID = "k1:new"
	upd.Positions[b.Key()] = Entry{Position: b, Fingerprint: Fingerprint{Hash: "new-b"}}
	upd.Positions[c.Key()] = Entry{Position: c, Fingerprint: Fingerprint{Hash: "new-c"}}
	got := Merge(base, upd)
	hashes := map[string]string{}
	for k, e := range got.Positions {
		hashes[k] = e.Fingerprint.Hash
	}
	assert.DeepEqual(t, hashes, map[string]string{a.Key(): "old-a", b.Key(): "new-b", c.Key(): "new-c"})
	assert.Equal(t, got.KeyID, "k1:new")
}

// BenchmarkFingerprint200 fingerprints 200 distinct positions with the
// default (OWASP) parameters, in parallel up to the CPU count.
func BenchmarkFingerprint200(b *testing.B) {
	items := make([]Item, 200)
	for i := range items {
		items[i] = Item{Position: pos("Api", fmt.Sprintf("Res%d", i), "Password"), Value: fmt.Sprintf("value-%d", i)}
	}
	for b.Loop() {
		h, err := NewHasher(Options{Key: testKey("bench")})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.All(context.Background(), items); err != nil {
			b.Fatal(err)
		}
	}
}

// conflictStore is an in-memory ObjectStore whose next Put fails as if
// another writer had written in between, after applying that writer's
// record: Save must read again and merge.
type conflictStore struct {
	body      []byte
	etag      int
	interpose *Record
	puts      int
}

func (s *conflictStore) Get(_ context.Context, _ string) ([]byte, string, error) {
	if s.body == nil {
		return nil, "", nil
	}
	return s.body, fmt.Sprint(s.etag), nil
}

func (s *conflictStore) Put(_ context.Context, _ string, body []byte, ifMatch string) error {
	s.puts++
	if s.interpose != nil {
		other, _ := Merge(nil, s.interpose).Encode()
		s.body, s.interpose = other, nil
		s.etag++
	}
	current := ""
	if s.body != nil {
		current = fmt.Sprint(s.etag)
	}
	if ifMatch != current {
		return fmt.Errorf("put: %w", ErrConflict)
	}
	s.body = body
	s.etag++
	return nil
}

func TestSaveMergesOnConflict(t *testing.T) {
	a, b := pos("Api", "A", "P"), pos("Api", "B", "P")
	other := NewRecord("Api", "us-east-1")
	other.Positions[a.Key()] = Entry{Position: a, Fingerprint: Fingerprint{Hash: "theirs"}}
	store := &conflictStore{interpose: other}
	mine := NewRecord("Api", "us-east-1")
	mine.Positions[b.Key()] = Entry{Position: b, Fingerprint: Fingerprint{Hash: "mine"}}

	assert.NilError(t, Save(context.Background(), store, "k", mine))
	assert.Equal(t, store.puts, 2, "the first put conflicts, the second succeeds")
	got, err := Decode(store.body)
	assert.NilError(t, err)
	assert.Equal(t, got.Positions[a.Key()].Fingerprint.Hash, "theirs")
	assert.Equal(t, got.Positions[b.Key()].Fingerprint.Hash, "mine")
}

// alwaysConflict never accepts a write.
type alwaysConflict struct{ puts int }

func (s *alwaysConflict) Get(context.Context, string) ([]byte, string, error) { return nil, "", nil }
func (s *alwaysConflict) Put(context.Context, string, []byte, string) error {
	s.puts++
	return ErrConflict
}

func TestSaveGivesUpAfterBoundedAttempts(t *testing.T) {
	s := &alwaysConflict{}
	err := Save(context.Background(), s, "k", NewRecord("Api", "us-east-1"))
	assert.ErrorIs(t, err, ErrConflict)
	assert.Assert(t, is.Contains(err.Error(), "gave up after 5 attempts"))
	assert.Equal(t, s.puts, MaxAttempts)
}

func TestObjectKey(t *testing.T) {
	assert.Equal(t, ObjectKey("", "Api", "us-east-1"), "cdkd-action/Api/us-east-1/fingerprints.json")
	assert.Equal(t, ObjectKey("/team/fp/", "Parent~Child", "eu-west-1"), "team/fp/Parent~Child/eu-west-1/fingerprints.json")
}

// BenchmarkFingerprintOne is one fingerprint of a new value at the default
// (OWASP) parameters on one core: what testing one guess costs whoever
// holds the key. README's figure comes from here.
func BenchmarkFingerprintOne(b *testing.B) {
	h, err := NewHasher(Options{Key: testKey("bench"), Parallel: 1})
	if err != nil {
		b.Fatal(err)
	}
	p := pos("Api", "Db", "MasterUserPassword")
	i := 0
	for b.Loop() {
		i++
		if _, err := h.Fingerprint(context.Background(), p, strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// Unhashed is what All is about to cost: one hash per distinct value not
// hashed yet, whatever the number of positions it fills.
func TestUnhashedCountsDistinctNewValues(t *testing.T) {
	h := hasher(t, "k")
	items := []Item{
		{Position: Position{Stack: "S", LogicalID: "A", Path: "Value"}, Value: "one"},
		{Position: Position{Stack: "S", LogicalID: "B", Path: "Value"}, Value: "one"},
		{Position: Position{Stack: "S", LogicalID: "C", Path: "Value"}, Value: "two"},
	}
	assert.Equal(t, h.Unhashed(items), 2)
	_, err := h.All(context.Background(), items[:1])
	assert.NilError(t, err)
	assert.Equal(t, h.Unhashed(items), 1, "one is memoised")
	assert.Equal(t, h.Unhashed(nil), 0)
}

func TestHashCPUScalesWithMemoryAndPasses(t *testing.T) {
	assert.Equal(t, DefaultParams.HashCPU(), defaultHashCPU)
	half := DefaultParams
	half.Time = 1
	assert.Equal(t, half.HashCPU(), defaultHashCPU/2)
	assert.Assert(t, cheap.HashCPU() < time.Millisecond, "%s", cheap.HashCPU())
}
