package reporters

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security/securitytest"
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
	withSecurity, err := cdkd.DecodeDiff([]byte(cdkdtest.DiffJSON(10, 200)))
	assert.NilError(t, err)
	securitytest.AddRows(withSecurity)
	for name, d := range map[string]model.Diff{"generated": generated, "sample": sampleDiff(t), "security": withSecurity} {
		md := DiffMarkdown(report(d), Unlimited)
		est := unlimitedSize(d)
		assert.Check(t, est >= len(md) && est < 3*len(md)+8192, "%s: estimated %d bytes for a %d-byte report", name, est, len(md))
	}
}

// TestWholeReportIsRenderedOnce: the ladder renders level after level
// until one fits; without a limit the first does, and only it is rendered.
func TestWholeReportIsRenderedOnce(t *testing.T) {
	r := report(largeDiff(5, 40))
	levels, render, note := diffRenderer(r, Unlimited)
	var rendered []int
	got := Fit(Unlimited, levels, func(w *Writer, level int) {
		rendered = append(rendered, level)
		render(w, level)
	}, note)
	assert.DeepEqual(t, rendered, []int{levelFull})
	assert.Equal(t, got, DiffMarkdown(r, Unlimited))
}
