package cdkdexec

import (
	"context"
	"io"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// The read-back reads the bucket itself only for a cdkd release whose
// layout was verified, with a known state bucket and a reader of raw
// objects; otherwise it reads through cdkd.
func TestReadBackIsDirectOnlyForVerifiedReleases(t *testing.T) {
	ctx := context.Background()
	objects := map[string][]byte{
		"b/cdkd/StackA/us-east-1/state.json": []byte(`{"version": 8, "stackName": "StackA", "region": "us-east-1", "resources": {}, "outputs": {"Url": "https://example.com"}}`),
	}
	get := func(_ context.Context, bucket, key string) ([]byte, error) { return objects[bucket+"/"+key], nil }
	exec := func(version, bucket string, withReader bool) *Executor {
		x := &Executor{Config: &config.Config{StatePrefix: "cdkd", WorkingDirectory: t.TempDir()}, Secrets: secrets.NewSet(),
			Log: workflow.New(io.Discard, func(string) string { return "" })}
		x.choice = &cdkd.Choice{Path: "cdkd", Version: version}
		x.StateObjects = func(context.Context) (string, func(context.Context, string, string) ([]byte, error)) {
			if bucket == "" || !withReader {
				return "", nil
			}
			return bucket, get
		}
		return x
	}
	rb := exec("0.284.40", "b", true).ReadBack(ctx)
	assert.Assert(t, rb.Bucket != nil)
	st, err := rb.State(ctx, "StackA", "us-east-1")
	assert.NilError(t, err)
	assert.Equal(t, st.Outputs["Url"].Text(), "https://example.com")

	for name, x := range map[string]*Executor{
		"another release":                      exec("0.284.41", "b", true),
		"no state bucket known":                exec("0.284.40", "", true),
		"a state source with no object reader": exec("0.284.40", "b", false),
	} {
		assert.Assert(t, x.ReadBack(ctx).Bucket == nil, name)
	}
}

// A stack's region is the one cdkd named, else the assembly's.
func TestKnownRegion(t *testing.T) {
	x := &Executor{AssemblyRegion: func(stack string) string { return map[string]string{"A": "eu-west-1"}[stack] }}
	assert.Equal(t, x.KnownRegion("A", "us-east-1"), "us-east-1")
	assert.Equal(t, x.KnownRegion("A", ""), "eu-west-1")
	assert.Equal(t, x.KnownRegion("B", ""), "")
}
