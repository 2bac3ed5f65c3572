package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// SummaryLimit is the size at which GitHub rejects a step summary: the whole
// file for the step must stay below it.
const SummaryLimit = 1024 * 1024

// TruncationNote ends a summary that was cut to fit SummaryLimit.
const TruncationNote = "…(summary truncated at GitHub's 1 MiB limit)"

const truncationBlock = "\n\n" + TruncationNote + "\n"

// AppendSummary appends Markdown to $GITHUB_STEP_SUMMARY. GitHub discards
// a step summary of SummaryLimit bytes or more, so the file's current size
// (whoever wrote it) is checked on every call; a write that would reach the
// limit is cut after its last whole line that fits (at a rune boundary if it
// has no line break at all) and followed by TruncationNote, and later writes
// are dropped. Without GITHUB_STEP_SUMMARY (local mode) the text is kept for
// Summary, under the same limit. Only I/O fails.
func (r *Runner) AppendSummary(markdown string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.summaryTruncated || markdown == "" {
		return nil
	}
	path := r.Getenv("GITHUB_STEP_SUMMARY")
	size := int64(r.summary.Len())
	if path != "" {
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			size = 0
		case err != nil:
			return fmt.Errorf("append step summary: %w", err)
		default:
			size = fi.Size()
		}
	}
	text, truncated := fitSummary(size, markdown)
	r.summaryTruncated = truncated
	if text == "" {
		return nil
	}
	if path == "" {
		r.summary.WriteString(text)
		return nil
	}
	if err := appendFile(path, text); err != nil {
		return fmt.Errorf("append step summary: %w", err)
	}
	return nil
}

// Summary returns the step summary kept in local mode ("" in Actions, where
// it went to the file).
func (r *Runner) Summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.summary.String()
}

// fitSummary returns what to append to a summary of size bytes so that it
// stays below SummaryLimit, and whether markdown had to be cut.
func fitSummary(size int64, markdown string) (string, bool) {
	if size+int64(len(markdown)) < SummaryLimit {
		return markdown, false
	}
	room := SummaryLimit - 1 - size - int64(len(truncationBlock))
	if room < 0 {
		return "", true // not even the note fits
	}
	// room < len(markdown), so markdown[room] exists.
	cut := markdown[:room]
	switch i := strings.LastIndexByte(cut, '\n'); {
	case i >= 0:
		cut = cut[:i+1] // keep whole lines
	case strings.Contains(markdown, "\n"):
		cut = "" // the first line does not fit: drop it whole
	default:
		for len(cut) > 0 && !utf8.RuneStart(markdown[len(cut)]) {
			cut = cut[:len(cut)-1] // one unbroken text: keep what fits
		}
	}
	return cut + truncationBlock, true
}
