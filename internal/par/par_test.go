package par

import (
	"runtime"
	"sync/atomic"
	"testing"

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
