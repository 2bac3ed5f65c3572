package cdkd

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// ansiRE matches CSI sequences (colours, cursor moves) and OSC sequences
// (titles, hyperlinks). cdkd colours its text unconditionally.
var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)
})

// StripANSI removes terminal escape sequences and a trailing carriage return,
// so text can be parsed and redacted as plain characters.
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiRE().ReplaceAllString(s, "")
	}
	return strings.TrimRight(s, "\r")
}

// errorLineRE matches the line cdkd's error handler ends with:
// `<ErrorName>: message`, e.g. `Error: ...`, `LockError: ...`,
// `AccessDeniedException: ...`.
var errorLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception|Fault)(?: \[[^\]]*\])?: \S`)
})

// LastErrorLine finds the reason cdkd gave for failing: the last line of the
// tail shaped like `<ErrorName>: message`. When that line ends with a colon
// (`Error: 1 node(s) failed:`), the first detail line below it is appended so
// the reason is one readable sentence. Without such a line it falls back to
// the last non-empty line, and returns "" for an empty tail.
func LastErrorLine(tail []string) string {
	for i := len(tail) - 1; i >= 0; i-- {
		line := strings.TrimSpace(StripANSI(tail[i]))
		if !errorLineRE().MatchString(line) {
			continue
		}
		if strings.HasSuffix(line, ":") {
			var details []string
			for _, d := range tail[i+1:] {
				d = strings.TrimSpace(StripANSI(d))
				if d != "" {
					details = append(details, strings.TrimPrefix(d, "- "))
				}
			}
			switch len(details) {
			case 0:
			case 1:
				line += " " + details[0]
			default:
				line += " " + details[0] + " (and " + strconv.Itoa(len(details)-1) + " more)"
			}
		}
		return line
	}
	for i := len(tail) - 1; i >= 0; i-- {
		if line := strings.TrimSpace(StripANSI(tail[i])); line != "" {
			return line
		}
	}
	return ""
}

// plainLines splits text into ANSI-stripped lines.
func plainLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = StripANSI(l)
	}
	return lines
}
