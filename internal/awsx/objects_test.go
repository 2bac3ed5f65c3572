package awsx

import (
	"bytes"
	"context"
	"encoding/base64"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"gotest.tools/v3/assert"
)

func TestObjectsConditionalWritesKumo(t *testing.T) {
	ctx := context.Background()
	o := kumoObjects(t)
	client := o.S3
	key := "cdkd-action/Api/us-east-1/fingerprints.json"

	body, etag, err := o.Get(ctx, key)
	assert.NilError(t, err)
	assert.Assert(t, body == nil && etag == "", "absent object")

	assert.NilError(t, o.Put(ctx, key, []byte(`{"n":1}`), ""))
	err = o.Put(ctx, key, []byte(`{"n":2}`), "")
	assert.ErrorIs(t, err, fingerprint.ErrConflict, "If-None-Match: * on an existing object")

	body, etag, err = o.Get(ctx, key)
	assert.NilError(t, err)
	assert.Equal(t, string(body), `{"n":1}`)
	assert.Assert(t, etag != "")

	assert.NilError(t, o.Put(ctx, key, []byte(`{"n":3}`), etag))
	err = o.Put(ctx, key, []byte(`{"n":4}`), etag)
	assert.ErrorIs(t, err, fingerprint.ErrConflict, "If-Match with a stale ETag")

	body, _, err = o.Get(ctx, key)
	assert.NilError(t, err)
	assert.Equal(t, string(body), `{"n":3}`)

	_, _, err = Objects{S3: client, Bucket: unique(t, "no-such-bucket")}.Get(ctx, key)
	assert.NilError(t, err, "a missing bucket reads as no object")
}

// kumoObjects is Objects on a new bucket of a new emulator.
func kumoObjects(t *testing.T) Objects {
	t.Helper()
	client := NewS3(kumoConfig(t, startKumo(t)))
	bucket := unique(t, "cdkd-state")
	_, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	assert.NilError(t, err)
	return Objects{S3: client, Bucket: bucket}
}

// Save against the emulator: a writer that got in between is merged, not
// overwritten.
func TestFingerprintSaveMergesKumo(t *testing.T) {
	ctx := context.Background()
	o := kumoObjects(t)
	key := fingerprint.ObjectKey("", "Api", "us-east-1")
	entry := func(id, hash string) (string, fingerprint.Entry) {
		p := fingerprint.Position{Stack: "Api", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: id, Path: "P"}
		return p.Key(), fingerprint.Entry{Position: p, Fingerprint: fingerprint.Fingerprint{Hash: hash, Params: fingerprint.DefaultParams}}
	}
	theirs := fingerprint.NewRecord("Api", "us-east-1")
	k, e := entry("A", "theirs")
	theirs.Positions[k] = e
	mine := fingerprint.NewRecord("Api", "us-east-1")
	k, e = entry("B", "mine")
	mine.Positions[k] = e

	racer := &racingObjects{Objects: o, other: theirs}
	assert.NilError(t, fingerprint.Save(ctx, racer, key, mine))
	assert.Equal(t, racer.puts, 2)

	got, err := fingerprint.Load(ctx, o, key)
	assert.NilError(t, err)
	assert.Equal(t, len(got.Positions), 2)
}

// racingObjects lets another writer write the object right before the
// first Put, as a concurrent deploy would.
type racingObjects struct {
	Objects
	other *fingerprint.Record
	puts  int
}

func (r *racingObjects) Put(ctx context.Context, key string, body []byte, ifMatch string) error {
	r.puts++
	if r.other != nil {
		b, err := r.other.Encode()
		if err != nil {
			return err
		}
		r.other = nil
		if err := r.Objects.Put(ctx, key, b, ""); err != nil {
			return err
		}
	}
	return r.Objects.Put(ctx, key, body, ifMatch)
}

// The fingerprint key against the emulator, which honours If-None-Match on
// PutObject: a run that finds no key while another creates it ends with
// the other's key, never a second one.
func TestFingerprintKeyCreatedOnceKumo(t *testing.T) {
	ctx := context.Background()
	o := kumoObjects(t)
	at := fingerprint.KeyObjectKey("")
	theirs := bytes.Repeat([]byte{1, 2, 3, 4}, 8)
	racer := &keyRacer{Objects: o, theirs: []byte(base64.StdEncoding.EncodeToString(theirs))}
	got, created, err := fingerprint.LoadOrCreateKey(ctx, racer, at, bytes.NewReader(bytes.Repeat([]byte{9}, 32)))
	assert.NilError(t, err)
	assert.Assert(t, !created)
	assert.DeepEqual(t, got, theirs)
	again, created, err := fingerprint.LoadOrCreateKey(ctx, o, at, bytes.NewReader(bytes.Repeat([]byte{8}, 32)))
	assert.NilError(t, err)
	assert.Assert(t, !created)
	assert.DeepEqual(t, again, theirs)
}

// keyRacer creates the key with another run's value right before the
// first Put.
type keyRacer struct {
	Objects
	theirs []byte
}

func (r *keyRacer) Put(ctx context.Context, key string, body []byte, ifMatch string) error {
	if r.theirs != nil {
		if err := r.Objects.Put(ctx, key, r.theirs, ""); err != nil {
			return err
		}
		r.theirs = nil
	}
	return r.Objects.Put(ctx, key, body, ifMatch)
}
