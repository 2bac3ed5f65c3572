package parts

import (
	"context"
	"errors"
	"io"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// objectState is a state source that can also read raw objects, as
// awsx.StateReader does.
type objectState struct{ objects map[string][]byte }

func (objectState) Read(context.Context, string, string, string, string) (*awsx.State, error) {
	return nil, nil
}

func (o objectState) Object(_ context.Context, bucket, key string) ([]byte, error) {
	return o.objects[bucket+"/"+key], nil
}

type plainState struct{}

func (plainState) Read(context.Context, string, string, string, string) (*awsx.State, error) {
	return nil, nil
}

// The direct read-back gets a reader only for a known state bucket whose
// state source reads raw objects; otherwise the read-back goes through
// cdkd (cdkdexec.Executor.ReadBack).
func TestStateObjectsNeedABucketAndAnObjectReader(t *testing.T) {
	ctx := context.Background()
	parts := func(bucket string, state discover.StateSource) *Parts {
		cfg := &config.Config{StateBucket: bucket, WorkingDirectory: t.TempDir()}
		return New(Setup{Getenv: func(string) string { return "" }, LogOut: io.Discard, Deps: Deps{
			AWS: func(context.Context, awsx.Settings) (discover.Deps, error) { return discover.Deps{State: state}, nil },
			BucketProbe: func(context.Context, awsx.Settings) (awsx.BucketProbeAPI, error) {
				return awsx.BucketProbeAPI{}, errors.New("no credentials")
			},
		}}, cfg, &ghctx.Context{})
	}
	state := objectState{objects: map[string][]byte{"b/cdkd/StackA/us-east-1/state.json": []byte(`{}`)}}
	bucket, get := parts("b", state).stateObjects(ctx)
	assert.Equal(t, bucket, "b")
	assert.Assert(t, get != nil)
	body, err := get(ctx, bucket, "cdkd/StackA/us-east-1/state.json")
	assert.NilError(t, err)
	assert.Equal(t, string(body), `{}`)

	for name, p := range map[string]*Parts{
		"no state bucket known":                parts("", state),
		"a state source with no object reader": parts("b", plainState{}),
	} {
		bucket, get := p.stateObjects(ctx)
		assert.Equal(t, bucket, "", name)
		assert.Assert(t, get == nil, name)
	}
}
