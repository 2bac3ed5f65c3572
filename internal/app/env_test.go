package app

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestDropRepeats(t *testing.T) {
	assert.Equal(t, dropRepeats("write comment: write comment: HTTP 502"), "write comment: HTTP 502")
	assert.Equal(t, dropRepeats("a: b: a"), "a: b: a")
}
