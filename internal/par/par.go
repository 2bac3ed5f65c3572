// Package par runs independent pieces of work side by side: a deploy's
// read-back runs several cdkd processes at once, a diff's fingerprint
// records are read a few at a time, and each stack's security rows and
// redaction are worked out on a core of their own.
package par

import (
	"context"
	"runtime"
	"sync"
)

// Each calls f(i) for every i in [0, n), on at most GOMAXPROCS goroutines
// at once, and returns when every call has. f must be safe to call for
// different i at once; what it writes to the i-th place of a result is
// read after Each returns.
func Each(n int, f func(i int)) {
	Bounded(context.Background(), n, runtime.GOMAXPROCS(0), f)
}

// Bounded calls f(i) for each i in [0, n), at most limit at once, and
// returns when all are done. Once ctx is done, no further call starts.
func Bounded(ctx context.Context, n, limit int, f func(i int)) {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}
