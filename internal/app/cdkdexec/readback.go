package cdkdexec

import (
	"context"
	"fmt"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
)

// Reading back what cdkd recorded (a deploy's runs and events, a stack's
// state): from the state bucket when the cdkd release that wrote it has a
// layout verified against the real cdkd (cdkd.BucketLayoutKnown), which
// starts no cdkd process; else, and for whatever the bucket read cannot
// answer as cdkd would, through cdkd, several calls side by side.

// directReadTimeout bounds one object read of the direct read-back.
const directReadTimeout = 30 * time.Second

// ReadBack is the run's read-back: direct when the cdkd that ran is a
// release whose bucket layout is known and the run's state bucket is known
// (named, or cdkd's default for the account), through cdkd otherwise.
func (x *Executor) ReadBack(ctx context.Context) cdkd.ReadBack {
	rb := cdkd.ReadBack{
		Run: func(ctx context.Context, args []string) (cdkd.Result, error) {
			return x.RunBuffered(ctx, x.Runner(), args)
		},
		Common: x.Common(),
	}
	if x.choice == nil || !cdkd.BucketLayoutKnown(x.choice.Version) || x.StateObjects == nil {
		return rb
	}
	bucket, get := x.StateObjects(ctx)
	if bucket == "" || get == nil {
		return rb
	}
	rb.Bucket = &cdkd.Bucket{Prefix: x.Config.StatePrefix, Get: func(ctx context.Context, key string) ([]byte, error) {
		// Bounded: a read that hangs is left to cdkd, bounded by
		// timeout-minutes.
		ctx, cancel := context.WithTimeout(ctx, directReadTimeout)
		defer cancel()
		return get(ctx, bucket, key)
	}}
	rb.Fallback = func(what string, err error) {
		x.logMu.Lock() // stacks are read side by side
		defer x.logMu.Unlock()
		x.Log.Debug(x.Secrets.Redact(fmt.Sprintf("%s read through cdkd: the state bucket did not answer as cdkd would (%v)", what, err)))
	}
	return rb
}

// KnownRegion is where a stack was deployed: the region cdkd's diff named,
// else its cloud assembly's; "" when neither says (cdkd then finds it).
func (x *Executor) KnownRegion(stack, region string) string {
	if region == "" && x.AssemblyRegion != nil {
		region = x.AssemblyRegion(stack)
	}
	return region
}
