package app

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// Reading a deploy back runs several cdkd calls at once, never more than
// the bound: the first call here waits until a second one runs beside it,
// which one-after-another reads never reach.
func TestForEachBoundedRunsSideBySide(t *testing.T) {
	var running, peak atomic.Int32
	var pairs sync.WaitGroup
	const n, limit = 8, 2
	pairs.Add(n)
	done := make([]bool, n)
	forEachBounded(context.Background(), n, limit, func(i int) {
		now := running.Add(1)
		for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
		}
		deadline := time.After(10 * time.Second)
		for peak.Load() < limit && !isDone(deadline) {
			time.Sleep(time.Millisecond)
		}
		done[i] = true
		running.Add(-1)
		pairs.Done()
	})
	pairs.Wait()
	assert.Equal(t, peak.Load(), int32(limit), "calls ran side by side, at most the bound")
	for i, d := range done {
		assert.Assert(t, d, "call %d ran", i)
	}
}

func isDone(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

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
