package secrets

import (
	"fmt"
	"strings"
)

// Cutting text after it was redacted still needs care at the cut: a
// secret's encoding wrapped across lines is matched only as a whole, so a
// block whose first lines were cut away can no longer be recognised, and
// what is left of it decodes to the rest of the secret. Such a partial
// block is hidden, never shown.

// LastLines returns the last n non-empty lines of text, which the caller
// has already redacted whole. cut says that text itself was cut before
// its first line (a bounded window of a longer stream). When lines are
// left out and the first kept lines continue an encoded block that began
// in what was left out, they are replaced with one line saying so.
func LastLines(text string, n int, cut bool) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSuffix(l, "\r"))
		}
	}
	if n <= 0 || len(lines) <= n && !cut {
		return lines
	}
	start := max(len(lines)-n, 0)
	continues := cut // the line before the first kept one is unknown
	if start > 0 {
		continues = endsInWord(lines[start-1])
	}
	kept := lines[start:]
	if !continues {
		return kept
	}
	hide := 0
	for hide < len(kept) && isBlockLine(kept[hide]) {
		hide++
		if len(strings.TrimSpace(kept[hide-1])) < minWrapWidth {
			break // a short line ends a block
		}
	}
	if hide == 0 {
		return kept
	}
	note := fmt.Sprintf("[cdkd-action: %d line(s) of an encoded block hidden: its start was cut off, so it could not be checked for secrets]", hide)
	return append([]string{note}, kept[hide:]...)
}

// isBlockLine reports whether a line is one word of the base64 alphabet
// (indentation allowed) holding a letter or a digit: what a wrapping
// encoder writes.
func isBlockLine(line string) bool {
	w := strings.TrimSpace(line)
	if w == "" {
		return false
	}
	alnum := false
	for i := 0; i < len(w); i++ {
		if byteClass[w[i]] != clsWord {
			return false
		}
		if c := w[i]; c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			alnum = true
		}
	}
	return alnum
}

// endsInWord reports whether a line ends with a word of the base64
// alphabet long enough for a wrapped block to continue after it.
func endsInWord(line string) bool {
	line = strings.TrimRight(line, " \t\r")
	n := 0
	for i := len(line) - 1; i >= 0 && byteClass[line[i]] == clsWord; i-- {
		n++
	}
	return n >= minWrapWidth
}
