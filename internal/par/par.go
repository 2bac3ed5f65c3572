// Package par runs independent pieces of work on every core: a large app's
// stacks are each read, traced and bound on their own.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i in [0, n), on at most GOMAXPROCS goroutines
// at once, and returns when every call has. f must be safe to call for
// different i at once; what it writes to the i-th place of a result is
// read after Each returns.
func Each(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
