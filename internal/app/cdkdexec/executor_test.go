package cdkdexec

import (
	"context"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"gotest.tools/v3/assert"
)

// A diff read from a saved report has no cdkd to read a state with, and a
// deleted resource's values say so.
func TestStackStateOfASavedDiff(t *testing.T) {
	x := &Executor{Config: &config.Config{FromJSON: "saved.json"}}
	state, why := x.StackState(context.Background(), "App", "")
	assert.Assert(t, state == nil)
	assert.Equal(t, why, "cdkd's state was not read (the diff came from from-json)")
}

// A buffered cdkd call keeps at most maxBufferedLog bytes of its log.
func TestCappedLogKeepsItsBound(t *testing.T) {
	b := &cappedLog{max: 10}
	n, err := b.Write([]byte("0123456789abc"))
	assert.NilError(t, err)
	assert.Equal(t, n, 13)
	_, _ = b.Write([]byte("de"))
	assert.Equal(t, b.String(), "0123456789")
	assert.Equal(t, b.dropped, 5)
}
