package app

import (
	"fmt"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// BenchmarkDiffPipeline measures what a PR run spends between cdkd's stdout
// and the posted bodies: decode and validate a 10,000-resource, 50-stack
// `cdkd diff --json`, redact it (20 secrets), digest it, and render the
// comment, the check run and the job summary within their budgets.
// Target on the 2-core CI machine: under 100 ms and 100 MB per op.
func BenchmarkDiffPipeline(b *testing.B) {
	raw := []byte(cdkdtest.DiffJSON(50, 200))
	set := secrets.NewSet()
	for i := 0; i < 20; i++ {
		set.Add(fmt.Sprintf("bench-secret-value-%02d", i), "bench")
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := cdkd.DecodeDiff(raw)
		if err != nil {
			b.Fatal(err)
		}
		redact.Diff(&d, redact.Input{Set: set, Placed: true})
		rep := reporters.DiffReport{Diff: d, Digest: d.Digest(), HeadSHA: "1111111", FullReportHint: "the job summary"}
		for _, budget := range []reporters.Budget{reporters.CommentBudget, reporters.CheckRunBudget, reporters.SummaryBudget} {
			_ = set.Redact(reporters.DiffMarkdown(rep, budget))
		}
	}
}
