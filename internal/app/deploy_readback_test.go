package app

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestReadBackParallelismIsBounded(t *testing.T) {
	n := readBackParallelism()
	assert.Assert(t, n >= 1 && n <= maxReadBack, "%d", n)
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
