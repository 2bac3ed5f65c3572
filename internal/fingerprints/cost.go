package fingerprints

import (
	"fmt"
	"runtime"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// longHashing is how long fingerprinting may take before the log says
// beforehand how many values and about how long: past a few seconds a
// silent step looks hung.
const longHashing = 3 * time.Second

// SayHashing logs, before hasher fingerprints items, how many distinct
// hidden values it will hash with Argon2id and about how long that takes,
// when that is more than a few seconds: one hash per distinct value, each
// costing Params().HashCPU(), on as many cores as hash at once.
func (f *Run) SayHashing(hasher *fingerprint.Hasher, items []fingerprint.Item) {
	if hasher == nil || len(items) == 0 || f.Info == nil {
		return // no key: nothing is hashed
	}
	n := hasher.Unhashed(items)
	cost := hasher.Params().HashCPU()
	cores := max(min(hasher.Parallel(), runtime.GOMAXPROCS(0)), 1)
	about := time.Duration(n) * cost / time.Duration(cores)
	if about <= longHashing {
		return
	}
	hashing := fmt.Sprintf("%d cores", cores)
	if cores == 1 {
		hashing = "1 core"
	}
	f.Info(fmt.Sprintf("Fingerprinting %d distinct hidden values: one Argon2id hash each (about %d ms of CPU), about %s with %s hashing.",
		n, cost.Milliseconds(), about.Round(time.Second), hashing))
}
