package workflow

import (
	"strings"
	"testing"
	"unicode"
)

// This file reads our output back the way actions/runner does
// (src/Runner.Common/ActionCommand.cs, ActionCommandManager.cs and
// FileCommandManager.cs), so tests assert what the runner would act on
// rather than only what we printed.

// ranCommand is one workflow command the runner would act on.
type ranCommand struct {
	Name  string
	Props map[string]string
	Data  string
}

// knownCommands are the runner's registered commands (matched ignoring case).
var knownCommands = []string{
	"stop-commands", "add-mask", "debug", "notice", "warning", "error", "group", "endgroup",
	"set-output", "set-env", "save-state", "add-path", "add-matcher", "remove-matcher", "echo",
}

// interpret returns the commands the runner would run for log, and the lines
// it would only display. Like .NET's StreamReader, it splits at \r\n, \r and \n.
func interpret(t *testing.T, log string) (ran []ranCommand, shown []string) {
	t.Helper()
	stopToken := ""
	log = strings.ReplaceAll(log, "\r\n", "\n")
	for _, line := range strings.FieldsFunc(log, func(c rune) bool { return c == '\r' || c == '\n' }) {
		registered := func(name string) bool {
			if stopToken != "" {
				return strings.EqualFold(name, stopToken)
			}
			for _, k := range knownCommands {
				if strings.EqualFold(name, k) {
					return true
				}
			}
			return false
		}
		c, ok := parseCommandLine(line, registered)
		switch {
		case !ok:
			shown = append(shown, line)
		case stopToken != "":
			stopToken = "" // only the resume token parses while stopped
			ran = append(ran, c)
		case strings.EqualFold(c.Name, "stop-commands"):
			stopToken = c.Data
			ran = append(ran, c)
		default:
			ran = append(ran, c)
		}
	}
	return ran, shown
}

// parseCommandLine follows TryParseV2 ("::" after leading whitespace) and
// then the legacy TryParse ("##[" anywhere in the line).
func parseCommandLine(line string, registered func(string) bool) (ranCommand, bool) {
	if m := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(m, "::") {
		if end := strings.Index(m[2:], "::"); end >= 0 {
			info := m[2 : 2+end]
			name, props, _ := strings.Cut(info, " ")
			if registered(name) {
				c := ranCommand{Name: name, Props: map[string]string{}, Data: unescape(m[2+end+2:], dataCodes)}
				for _, p := range strings.Split(strings.TrimSpace(props), ",") {
					if k, v, ok := strings.Cut(p, "="); ok && k != "" && v != "" {
						c.Props[k] = unescape(v, propertyCodes)
					}
				}
				return c, true
			}
		}
	}
	if i := strings.Index(line, "##["); i >= 0 {
		if rb := strings.IndexByte(line[i:], ']'); rb >= 0 {
			name, _, _ := strings.Cut(line[i+3:i+rb], " ")
			if registered(name) {
				return ranCommand{Name: name, Props: map[string]string{}, Data: line[i+rb+1:]}, true
			}
		}
	}
	return ranCommand{}, false
}

var (
	dataCodes     = [][2]string{{"%0D", "\r"}, {"%0A", "\n"}, {"%25", "%"}}
	propertyCodes = [][2]string{{"%0D", "\r"}, {"%0A", "\n"}, {"%3A", ":"}, {"%2C", ","}, {"%25", "%"}}
)

// unescape replaces each code in turn over the whole string, as the runner does.
func unescape(s string, codes [][2]string) string {
	for _, c := range codes {
		s = strings.ReplaceAll(s, c[0], c[1])
	}
	return s
}

// parseOutputFile reads $GITHUB_OUTPUT as the runner does on Linux: lines end
// at \n; NAME=VALUE, or NAME<<DELIM followed by lines up to one equal to DELIM.
func parseOutputFile(t *testing.T, text string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1] // the runner's ReadLine returns null at the end
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq >= 0 && (hd < 0 || eq < hd):
			out[line[:eq]] = line[eq+1:]
		case hd >= 0:
			name, delim := line[:hd], line[hd+2:]
			if name == "" || delim == "" {
				t.Fatalf("invalid format %q", line)
			}
			var value []string
			for i++; ; i++ {
				if i >= len(lines) {
					t.Fatalf("matching delimiter not found %q", delim)
				}
				if lines[i] == delim {
					break
				}
				value = append(value, lines[i])
			}
			out[name] = strings.Join(value, "\n")
		default:
			t.Fatalf("invalid format %q", line)
		}
	}
	return out
}
