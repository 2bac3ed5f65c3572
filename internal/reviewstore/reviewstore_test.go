package reviewstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// memStore is a bucket in memory with S3's create-only conditional put.
type memStore struct{ objects map[string][]byte }

func (m *memStore) Get(_ context.Context, key string) ([]byte, string, error) {
	b, ok := m.objects[key]
	if !ok {
		return nil, "", nil
	}
	return b, fmt.Sprintf("%x", len(b)), nil
}

func (m *memStore) Put(_ context.Context, key string, body []byte, ifMatch string) error {
	if _, ok := m.objects[key]; ok && ifMatch == "" {
		return fmt.Errorf("put %s: %w", key, fingerprint.ErrConflict)
	}
	m.objects[key] = body
	return nil
}

func diffOf(ids ...string) model.Diff {
	var d model.Diff
	s := model.StackDiff{Stack: "A", Region: "us-east-1"}
	for _, id := range ids {
		s.Changes = append(s.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeCreate, ResourceType: "AWS::SQS::Queue"})
	}
	d.Stacks = []model.StackDiff{s}
	d.Sort()
	return d
}

func TestSaveOnceLoadChecked(t *testing.T) {
	ctx := context.Background()
	st := &memStore{objects: map[string][]byte{}}
	d := diffOf("Q1", "Q2")
	key, err := Save(ctx, st, "", d)
	assert.NilError(t, err)
	assert.Equal(t, key, "cdkd-action/reviews/"+d.Digest()+".json.gz")
	_, err = Save(ctx, st, "", d)
	assert.NilError(t, err, "saving the same change set again is fine: it is content-addressed")

	cs, err := Load(ctx, st, "", d.Digest())
	assert.NilError(t, err)
	assert.Equal(t, cs.Diff.Digest(), d.Digest())

	// Another change set under this digest's name is refused on read.
	moved, err := Save(ctx, st, "elsewhere", diffOf("Q3"))
	assert.NilError(t, err)
	st.objects[key] = st.objects[moved]
	_, err = Load(ctx, st, "", d.Digest())
	assert.Assert(t, errors.Is(err, ErrNotTheChangeSet), "%v", err)
	// and never overwritten by Save.
	_, err = Save(ctx, st, "", d)
	assert.ErrorContains(t, err, "another object is there")

	_, err = Load(ctx, st, "", diffOf("Q9").Digest())
	assert.Assert(t, errors.Is(err, ErrNotFound), "%v", err)
}

// conflicting answers its first n conditional writes as S3 does when
// another conditional write to the key is in flight (409
// ConditionalRequestConflict): nothing is written.
type conflicting struct {
	memStore
	n int
}

func (c *conflicting) Put(ctx context.Context, key string, body []byte, ifMatch string) error {
	if c.n > 0 {
		c.n--
		return fmt.Errorf("put %s: %w", key, errors.Join(fingerprint.ErrConflict, errors.New("409 ConditionalRequestConflict")))
	}
	return c.memStore.Put(ctx, key, body, ifMatch)
}

// A 409 that leaves nothing there is written again, a bounded number of
// times; it is never "another object is there".
func TestSaveWritesAgainAfterAConflictInFlight(t *testing.T) {
	ctx := context.Background()
	d := diffOf("Q1")
	st := &conflicting{memStore: memStore{objects: map[string][]byte{}}, n: saveAttempts - 1}
	key, err := Save(ctx, st, "", d)
	assert.NilError(t, err)
	_, ok := st.objects[key]
	assert.Assert(t, ok)

	st = &conflicting{memStore: memStore{objects: map[string][]byte{}}, n: saveAttempts}
	_, err = Save(ctx, st, "", d)
	assert.ErrorContains(t, err, "conflicted with other writes in flight, and none is there")
	assert.Assert(t, !strings.Contains(err.Error(), "delete it"))
}

// A missing permission and a network fault are told apart.
func TestRemedy(t *testing.T) {
	denied := fmt.Errorf("read: %w", &awsx.AccessDeniedError{Action: "s3:GetObject", Resource: "s3://b/k", Err: errors.New("403")})
	assert.Equal(t, Remedy(denied, "deploy", "s3:GetObject", "b/k"), "the deploy job's role needs s3:GetObject on b/k")
	cut := fmt.Errorf("read the reviewed change set at k: read object body: %w", io.ErrUnexpectedEOF)
	assert.Assert(t, strings.Contains(Remedy(cut, "deploy", "s3:GetObject", "b/k"), "a network fault, not a missing permission"))
	assert.Equal(t, Remedy(errors.New("NoSuchBucket"), "diff", "s3:PutObject", "b/*"), "")
	assert.Equal(t, Remedy(nil, "diff", "s3:PutObject", "b/*"), "")
}
