package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
)

// summaryFile returns a step summary path already holding size bytes.
func summaryFile(t *testing.T, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "step_summary")
	existing := strings.Repeat(strings.Repeat("e", 99)+"\n", size/100) + strings.Repeat("e", size%100)
	assert.NilError(t, os.WriteFile(path, []byte(existing), 0o644))
	return path
}

func readSummary(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	return string(b)
}

func TestAppendSummaryBoundary(t *testing.T) {
	md := "## Diff\n\n" + strings.Repeat("| stack | change |\n", 10)
	tests := []struct {
		name      string
		existing  int
		truncated bool
	}{
		{name: "empty file", existing: 0},
		{name: "ends one byte below the limit", existing: SummaryLimit - 1 - len(md)},
		{name: "would reach the limit", existing: SummaryLimit - len(md), truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := summaryFile(t, tt.existing)
			r, _ := newTestRunner(map[string]string{"GITHUB_STEP_SUMMARY": path})
			assert.NilError(t, r.AppendSummary(md))

			got := readSummary(t, path)
			assert.Assert(t, len(got) < SummaryLimit, "size %d", len(got))
			assert.Equal(t, strings.Contains(got, TruncationNote), tt.truncated)
			if !tt.truncated {
				assert.Equal(t, got[tt.existing:], md)
			}
		})
	}
}

func TestAppendSummaryManyWritesNearTheLimit(t *testing.T) {
	path := summaryFile(t, SummaryLimit-10_000)
	r, _ := newTestRunner(map[string]string{"GITHUB_STEP_SUMMARY": path})

	var sent strings.Builder
	for i := range 100 {
		chunk := fmt.Sprintf("| stack-%03d | %s |\n", i, strings.Repeat("x", 280))
		sent.WriteString(chunk)
		assert.NilError(t, r.AppendSummary(chunk))
	}

	got := readSummary(t, path)
	assert.Assert(t, len(got) < SummaryLimit, "size %d", len(got))
	assert.Assert(t, len(got) > SummaryLimit-400, "cut far too early: size %d", len(got))
	assert.Equal(t, strings.Count(got, TruncationNote), 1)
	assert.Assert(t, strings.HasSuffix(got, "\n\n"+TruncationNote+"\n"))

	// What we kept is a prefix of what was sent, cut at a line end.
	kept := strings.TrimSuffix(got[SummaryLimit-10_000:], "\n\n"+TruncationNote+"\n")
	assert.Assert(t, strings.HasPrefix(sent.String(), kept))
	assert.Assert(t, strings.HasSuffix(kept, "|\n"), kept[len(kept)-40:])

	// Writes after the cut are dropped, not appended after the note.
	assert.NilError(t, r.AppendSummary("late\n"))
	assert.Equal(t, readSummary(t, path), got)
}

func TestAppendSummaryCutsALongLineAtARune(t *testing.T) {
	path := summaryFile(t, SummaryLimit-1000)
	r, _ := newTestRunner(map[string]string{"GITHUB_STEP_SUMMARY": path})
	assert.NilError(t, r.AppendSummary(strings.Repeat("€", 1000))) // 3 bytes each, no newline

	got := readSummary(t, path)
	assert.Assert(t, len(got) < SummaryLimit)
	assert.Assert(t, utf8.ValidString(got))
	assert.Assert(t, strings.Contains(got, "€\n\n"+TruncationNote))
}

func TestAppendSummaryNoRoomForTheNote(t *testing.T) {
	path := summaryFile(t, SummaryLimit-10)
	r, _ := newTestRunner(map[string]string{"GITHUB_STEP_SUMMARY": path})
	assert.NilError(t, r.AppendSummary("more than ten bytes\n"))
	assert.Equal(t, len(readSummary(t, path)), SummaryLimit-10)
}

func TestAppendSummaryCreatesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "step_summary")
	r, _ := newTestRunner(map[string]string{"GITHUB_STEP_SUMMARY": path})
	assert.NilError(t, r.AppendSummary("# a\n"))
	assert.NilError(t, r.AppendSummary("# b\n"))
	assert.Equal(t, readSummary(t, path), "# a\n# b\n")
}

func TestAppendSummaryIOError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "step_summary")
	r, _ := newTestRunner(map[string]string{"GITHUB_STEP_SUMMARY": path})
	assert.ErrorContains(t, r.AppendSummary("# a\n"), "append step summary")
}

func TestAppendSummaryLocalMode(t *testing.T) {
	r, out := newTestRunner(nil)
	assert.NilError(t, r.AppendSummary("# a\n"))
	big := strings.Repeat("y", 99) + "\n"
	for range SummaryLimit/len(big) + 1 {
		assert.NilError(t, r.AppendSummary(big))
	}
	got := r.Summary()
	assert.Assert(t, strings.HasPrefix(got, "# a\n"))
	assert.Assert(t, len(got) < SummaryLimit)
	assert.Assert(t, strings.HasSuffix(got, TruncationNote+"\n"))
	assert.Equal(t, out.String(), "")
}
