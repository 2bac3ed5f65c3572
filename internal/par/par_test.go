package par

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// Every index is done once, whatever the number of cores, and no more
// than GOMAXPROCS at a time.
func TestEach(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 3, 100} {
			done := make([]int32, n)
			var running, most atomic.Int32
			Each(n, func(i int) {
				now := running.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				atomic.AddInt32(&done[i], 1)
				runtime.Gosched()
				running.Add(-1)
			})
			for i, d := range done {
				assert.Equal(t, d, int32(1), "procs %d, n %d: index %d", procs, n, i)
			}
			assert.Assert(t, most.Load() <= int32(procs), "procs %d: %d at once", procs, most.Load())
		}
		runtime.GOMAXPROCS(prev)
	}
}

// Reading a deploy back runs several cdkd calls at once, never more than
// the bound: the first call here waits until a second one runs beside it,
// which one-after-another reads never reach.
func TestBoundedRunsSideBySide(t *testing.T) {
	var running, peak atomic.Int32
	var pairs sync.WaitGroup
	const n, limit = 8, 2
	pairs.Add(n)
	done := make([]bool, n)
	Bounded(context.Background(), n, limit, func(i int) {
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
