package deploy

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// cdkdProcessBytes is what one cdkd process takes at its peak (Node.js
// start-up included): about 390 MiB measured for cdkd 0.284, rounded up.
const cdkdProcessBytes = 512 << 20

// maxReadBack caps the cdkd processes a deploy's read-back runs at once,
// whatever the runner: each one calls AWS, which throttles.
const maxReadBack = 16

// readBackParallelism is how many cdkd processes reading a deploy back run
// at once: one per core, no more than the memory available holds
// (MemAvailable of /proc/meminfo, where there is one), at least one.
func readBackParallelism() int {
	n := min(runtime.GOMAXPROCS(0), maxReadBack)
	if avail := memAvailable(); avail > 0 {
		n = min(n, int(avail/cdkdProcessBytes))
	}
	return max(n, 1)
}

// memAvailable is the memory the kernel says is available for new
// processes, in bytes; 0 when it cannot tell.
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return kib << 10
	}
	return 0
}
