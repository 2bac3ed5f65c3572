package reviewstore

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"

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
