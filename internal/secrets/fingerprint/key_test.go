package fingerprint

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseKey(t *testing.T) {
	random := testKey("random")
	tests := []struct {
		name  string
		in    string
		want  []byte
		error string
	}{
		{name: "openssl rand -base64 32", in: base64.StdEncoding.EncodeToString(random) + "\n", want: random},
		{name: "unpadded URL-safe base64", in: base64.RawURLEncoding.EncodeToString(random), want: random},
		{name: "openssl rand -hex 32", in: hex.EncodeToString(random), want: random},
		{name: "a passphrase", in: "changeme", error: "got 6"},
		{name: "a passphrase with spaces", in: "correct horse battery staple", error: "neither hex nor base64"},
		{name: "words that happen to be base64", in: "correcthorsebatterystaplecorrecthorsebatterystaple", error: "does not look random"},
		{name: "16 random bytes", in: base64.StdEncoding.EncodeToString(random[:16]), error: "got 16"},
		{name: "16 random bytes in hex", in: hex.EncodeToString(random[:16]), error: "got 16"},
		{name: "empty", in: "", error: "got an empty value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKey(tc.in)
			if tc.error != "" {
				assert.ErrorContains(t, err, tc.error)
				assert.ErrorContains(t, err, "(a passphrase is not a key)")
				assert.ErrorContains(t, err, "openssl rand -base64 32")
				assert.Assert(t, tc.in == "" || !strings.Contains(err.Error(), strings.TrimSpace(tc.in)), "the error quotes the key")
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

// keyStore is an in-memory ObjectStore for the key: Put honours
// If-None-Match as S3 does, and before can write another run's key just
// before this run's Put.
type keyStore struct {
	objects map[string][]byte
	before  func(s *keyStore)
	getErr  error
	puts    int
}

func (s *keyStore) Get(_ context.Context, key string) ([]byte, string, error) {
	if s.getErr != nil {
		return nil, "", s.getErr
	}
	b, ok := s.objects[key]
	if !ok {
		return nil, "", nil
	}
	return b, "etag", nil
}

func (s *keyStore) Put(_ context.Context, key string, body []byte, ifMatch string) error {
	s.puts++
	if s.before != nil {
		s.before(s)
		s.before = nil
	}
	if _, exists := s.objects[key]; exists && ifMatch == "" {
		return errors.Join(ErrConflict, errors.New("412 Precondition Failed"))
	}
	s.objects[key] = body
	return nil
}

func TestLoadOrCreateKey(t *testing.T) {
	ctx := context.Background()
	const at = "cdkd-action/key"
	mine := bytes.Repeat([]byte{7}, KeySize)
	theirs := testKey("theirs")

	t.Run("created once", func(t *testing.T) {
		s := &keyStore{objects: map[string][]byte{}}
		k, created, err := LoadOrCreateKey(ctx, s, at, bytes.NewReader(mine))
		assert.NilError(t, err)
		assert.Assert(t, created)
		assert.DeepEqual(t, k, mine)
		assert.Equal(t, string(s.objects[at]), base64.StdEncoding.EncodeToString(mine)+"\n")
		again, created, err := LoadOrCreateKey(ctx, s, at, bytes.NewReader(theirs))
		assert.NilError(t, err)
		assert.Assert(t, !created)
		assert.DeepEqual(t, again, mine)
		assert.Equal(t, s.puts, 1)
	})
	t.Run("another run creates it first", func(t *testing.T) {
		s := &keyStore{objects: map[string][]byte{}, before: func(s *keyStore) {
			s.objects[at] = []byte(base64.StdEncoding.EncodeToString(theirs))
		}}
		k, created, err := LoadOrCreateKey(ctx, s, at, bytes.NewReader(mine))
		assert.NilError(t, err)
		assert.Assert(t, !created)
		assert.DeepEqual(t, k, theirs) // both runs use the key that was written first
	})
	t.Run("unreadable", func(t *testing.T) {
		s := &keyStore{objects: map[string][]byte{}, getErr: errors.New("AccessDenied")}
		_, _, err := LoadOrCreateKey(ctx, s, at, bytes.NewReader(mine))
		assert.ErrorContains(t, err, "read the fingerprint key cdkd-action/key: AccessDenied")
		assert.Equal(t, s.puts, 0, "a key that cannot be read is never replaced")
	})
	t.Run("a weak key in the bucket", func(t *testing.T) {
		s := &keyStore{objects: map[string][]byte{at: []byte("changeme")}}
		_, _, err := LoadOrCreateKey(ctx, s, at, bytes.NewReader(mine))
		assert.Assert(t, is.ErrorContains(err, "got 6"))
	})
}

func TestKeyObjectKey(t *testing.T) {
	assert.Equal(t, KeyObjectKey(""), "cdkd-action/key")
	assert.Equal(t, KeyObjectKey("/team/fp/"), "team/fp/key")
}
