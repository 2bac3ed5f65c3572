package deploy

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestReadBackParallelismIsBounded(t *testing.T) {
	n := readBackParallelism()
	assert.Assert(t, n >= 1 && n <= maxReadBack, "%d", n)
}
