package reporters

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"gotest.tools/v3/assert"
)

// TestWriterGrowsByDoubling: a local run prints the whole report,
// megabytes for 10,000 resources. Grown a quarter at a time (as append
// grows), the buffer allocated five times the report; doubled, about
// three and a half.
func TestWriterGrowsByDoubling(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	const size = 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := NewWriter(Unlimited)
	for w.Len() < size {
		w.WriteString(line)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Check(t, allocated < 4*size, "writing %d bytes allocated %d", w.Len(), allocated)
}

// TestWholeReportIsSizedOnce: the estimate a whole diff report starts from
// covers the report, so it is allocated once.
func TestWholeReportIsSizedOnce(t *testing.T) {
	generated, err := cdkd.DecodeDiff([]byte(cdkdtest.DiffJSON(10, 200)))
	assert.NilError(t, err)
	for name, d := range map[string]model.Diff{"generated": generated, "sample": sampleDiff(t)} {
		md := DiffMarkdown(report(d), Unlimited)
		est := unlimitedSize(d)
		assert.Check(t, est >= len(md) && est < 3*len(md)+8192, "%s: estimated %d bytes for a %d-byte report", name, est, len(md))
	}
}
