// Package runnermask simulates how the GitHub Actions runner masks secrets
// in a step's log, so that leak tests can check what a user would actually
// see of the action's whole output.
//
// It models github.com/actions/runner:
//   - Handlers/OutputManager.cs: each line of the step's output is first
//     tried as a workflow command, and printed (masked) when it is not one;
//   - Runner.Common/ActionCommand.cs: TryParseV2 (`::name props::data`, after
//     trimming leading whitespace, with %0D %0A %25 unescaped in the data and
//     %0D %0A %3A %2C %25 in property values) and the legacy TryParse
//     (`##[name props]data` anywhere in the line, %3B %0D %0A %5D %25);
//   - Runner.Worker/ActionCommandManager.cs: stop-commands, add-mask (the
//     value is registered whole, exactly as unescaped, never split into
//     lines; a whitespace-only value is refused with a warning), echo,
//     the issue commands, group, debug;
//   - Sdk/DTLogging/Logging/SecretMasker.cs and ValueEncoders.cs: a
//     registered value and its encodings are matched as plain substrings,
//     every occurrence of every one is found, and overlapping or adjacent
//     occurrences merge into one "***".
//
// The process output is read with .NET's StreamReader.ReadLine, which ends a
// line at "\r\n", "\n" or a lone "\r"; so does the simulator.
package runnermask

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Simulate replays log, a step's raw output, the way the runner does and
// returns the log as a user sees it, each line ending in "\n".
//
// `::add-mask::VALUE` registers VALUE (and the runner's encodings of it) for
// the lines AFTER it; `::stop-commands::TOKEN` ... `::TOKEN::` turns command
// processing off, so an add-mask in between is printed (masked only by what
// was registered before) instead of registering anything.
//
// Simulate shows the most revealing view: step debug logging on (as when a
// run is re-run with debug logging), so ::debug:: messages and echoed
// commands are part of the log. Use a Simulator for the default view.
func Simulate(log string) (masked string) {
	s := &Simulator{StepDebug: true}
	for _, line := range SplitLines(log) {
		s.Line(line)
	}
	return s.Log()
}

// SplitLines splits text the way StreamReader.ReadLine does: at "\r\n",
// "\n" and lone "\r"; a final line without terminator counts, a final
// terminator does not start an empty line.
func SplitLines(text string) []string {
	var lines []string
	for text != "" {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i])
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
	return lines
}

// Annotation is an issue the runner creates from ::error::, ::warning:: or
// ::notice::. Message is masked (ExecutionContext.AddIssue masks it);
// Properties (title, file, line...) are passed to the annotation as given,
// unmasked.
type Annotation struct {
	Kind       string
	Message    string
	Properties map[string]string
}

// Simulator replays output lines one at a time. The zero value behaves like
// a runner with default settings: echo of commands off, debug messages
// hidden.
type Simulator struct {
	// StepDebug is ACTIONS_STEP_DEBUG: debug messages are shown and commands
	// are echoed from the start.
	StepDebug bool

	Annotations []Annotation

	started    bool
	echo       bool
	registered map[string]bool // command names, lower-cased
	stopped    bool
	stopToken  string
	originals  map[string]bool
	secrets    []string
	secretSet  map[string]bool
	log        strings.Builder
}

// commands are the names ActionCommandManager registers (one extension
// each, plus stop-commands). internal-set-repo-path is only for plugins.
var commands = []string{
	"stop-commands", "set-env", "set-output", "save-state", "add-mask", "add-path",
	"add-matcher", "remove-matcher", "debug", "warning", "error", "notice",
	"group", "endgroup", "echo",
}

func (s *Simulator) init() {
	if s.started {
		return
	}
	s.started = true
	s.echo = s.StepDebug
	s.registered = make(map[string]bool, len(commands))
	for _, c := range commands {
		s.registered[c] = true
	}
}

// Line processes one line of the step's output (without its terminator).
func (s *Simulator) Line(line string) {
	s.init()
	if strings.Contains(line, "##[") || strings.Contains(line, "::") {
		if cmd, ok := s.parse(line); ok && s.process(line, cmd) {
			return
		}
	}
	s.write("", line)
}

// Log returns what has been printed so far, masked.
func (s *Simulator) Log() string { return s.log.String() }

// AddMask registers value as SecretMasker.AddValue does: the value and each
// of its encodings, unless empty or already registered.
func (s *Simulator) AddMask(value string) {
	if value == "" || s.originals[value] {
		return
	}
	if s.originals == nil {
		s.originals = make(map[string]bool)
		s.secretSet = make(map[string]bool)
	}
	s.originals[value] = true
	for _, v := range variations(value) {
		if !s.secretSet[v] {
			s.secretSet[v] = true
			s.secrets = append(s.secrets, v)
		}
	}
}

// Mask is SecretMasker.MaskSecrets: every occurrence of every registered
// string, overlapping ones included, merged when they overlap or touch, each
// merged range replaced by "***".
func (s *Simulator) Mask(input string) string {
	type pos struct{ start, end int }
	var found []pos
	for _, secret := range s.secrets {
		for i := 0; i+len(secret) <= len(input); {
			j := strings.Index(input[i:], secret)
			if j < 0 {
				break
			}
			found = append(found, pos{i + j, i + j + len(secret)})
			i += j + 1
		}
	}
	if len(found) == 0 {
		return input
	}
	sort.SliceStable(found, func(a, b int) bool { return found[a].start < found[b].start })
	merged := []pos{found[0]}
	for _, p := range found[1:] {
		last := &merged[len(merged)-1]
		if p.start <= last.end {
			last.end = max(last.end, p.end)
		} else {
			merged = append(merged, p)
		}
	}
	var b strings.Builder
	prev := 0
	for _, p := range merged {
		b.WriteString(input[prev:p.start])
		b.WriteString("***")
		prev = p.end
	}
	b.WriteString(input[prev:])
	return b.String()
}

// write is ExecutionContext.Write: the tag and message masked together.
func (s *Simulator) write(tag, message string) {
	s.log.WriteString(s.Mask(tag + message))
	s.log.WriteByte('\n')
}

func (s *Simulator) debug(message string) {
	if s.StepDebug {
		s.write("##[debug]", message)
	}
}

// addIssue is ExecutionContext.AddIssue: the message is masked for the
// annotation and written to the log with its tag when not empty.
func (s *Simulator) addIssue(kind, message string, props map[string]string) {
	s.Annotations = append(s.Annotations, Annotation{Kind: kind, Message: s.Mask(message), Properties: props})
	if message != "" {
		s.write("##["+kind+"]", message)
	}
}

type command struct {
	name  string // as written
	props map[string]string
	data  string
}

// parse tries TryParseV2, then the legacy TryParse, against the currently
// registered command names.
func (s *Simulator) parse(line string) (command, bool) {
	if cmd, ok := s.parseV2(line); ok {
		return cmd, true
	}
	return s.parseLegacy(line)
}

func (s *Simulator) known(name string) bool {
	return name != "" && s.registered[strings.ToLower(name)]
}

// parseV2 is ActionCommand.TryParseV2.
func (s *Simulator) parseV2(line string) (command, bool) {
	msg := strings.TrimLeftFunc(line, unicode.IsSpace)
	if !strings.HasPrefix(msg, "::") {
		return command{}, false
	}
	end := strings.Index(msg[2:], "::")
	if end < 0 {
		return command{}, false
	}
	end += 2
	info := msg[2:end]
	name, propStr, hasProps := strings.Cut(info, " ")
	if !s.known(name) {
		return command{}, false
	}
	cmd := command{name: name, props: map[string]string{}}
	if hasProps {
		for _, p := range strings.Split(strings.TrimSpace(propStr), ",") {
			if k, v, ok := splitProperty(p); ok {
				cmd.props[k] = unescape(v, propertyEscapes)
			}
		}
	}
	cmd.data = unescape(msg[end+2:], dataEscapes)
	return cmd, true
}

// parseLegacy is ActionCommand.TryParse (`##[name k=v;k=v]data`).
func (s *Simulator) parseLegacy(line string) (command, bool) {
	start := strings.Index(line, "##[")
	if start < 0 {
		return command{}, false
	}
	rb := strings.IndexByte(line[start:], ']')
	if rb < 0 {
		return command{}, false
	}
	rb += start
	info := line[start+3 : rb]
	name, propStr, hasProps := strings.Cut(info, " ")
	if !s.known(name) {
		return command{}, false
	}
	cmd := command{name: name, props: map[string]string{}}
	if hasProps {
		for _, p := range strings.Split(propStr, ";") {
			if k, v, ok := splitProperty(p); ok {
				cmd.props[k] = unescape(v, legacyEscapes)
			}
		}
	}
	cmd.data = unescape(line[rb+1:], legacyEscapes)
	return cmd, true
}

// splitProperty mirrors Split('=', count: 2, RemoveEmptyEntries) followed by
// "if (pair.Length == 2)".
func splitProperty(p string) (k, v string, ok bool) {
	if p == "" {
		return "", "", false
	}
	k, v, found := strings.Cut(p, "=")
	if !found || k == "" || v == "" {
		return "", "", false
	}
	return k, v, true
}

// The escape tables of ActionCommand.cs, applied in order with
// String.Replace, as the runner does.
var (
	dataEscapes     = [][2]string{{"%0D", "\r"}, {"%0A", "\n"}, {"%25", "%"}}
	propertyEscapes = [][2]string{{"%0D", "\r"}, {"%0A", "\n"}, {"%3A", ":"}, {"%2C", ","}, {"%25", "%"}}
	legacyEscapes   = [][2]string{{"%3B", ";"}, {"%0D", "\r"}, {"%0A", "\n"}, {"%5D", "]"}, {"%25", "%"}}
)

func unescape(s string, table [][2]string) string {
	for _, e := range table {
		s = strings.ReplaceAll(s, e[0], e[1])
	}
	return s
}

// omitEcho lists the extensions whose OmitEcho is true.
var omitEcho = map[string]bool{"add-mask": true, "debug": true, "warning": true, "error": true, "notice": true}

// process is ActionCommandManager.TryProcessCommand after parsing: it
// reports whether the line was consumed as a command.
func (s *Simulator) process(line string, cmd command) bool {
	name := strings.ToLower(cmd.name)
	if s.stopped {
		if s.stopToken != "" && strings.EqualFold(cmd.name, s.stopToken) {
			s.write("", line)
			delete(s.registered, strings.ToLower(s.stopToken))
			s.stopped = false
			s.stopToken = ""
			return true
		}
		return false // printed as ordinary output
	}
	if name == "stop-commands" {
		s.write("", line)
		s.stopToken = cmd.data
		s.stopped = true
		if cmd.data != "" {
			s.registered[strings.ToLower(cmd.data)] = true
		}
		return true
	}
	if s.echo && !omitEcho[name] {
		s.write("", line)
	}
	switch name {
	case "add-mask":
		if strings.TrimSpace(cmd.data) == "" {
			s.addIssue("warning", "Can't add secret mask for empty string in ##[add-mask] command.", nil)
			break
		}
		if s.echo {
			s.write("", "::add-mask::***")
		}
		s.AddMask(cmd.data)
	case "debug":
		s.debug(cmd.data)
	case "warning", "error", "notice":
		s.addIssue(name, cmd.data, cmd.props)
	case "group":
		s.write("", "##[group]"+cmd.data)
	case "endgroup":
		s.write("", "##[endgroup]")
	case "echo":
		switch strings.ToUpper(strings.TrimSpace(cmd.data)) {
		case "ON":
			s.echo = true
		case "OFF":
			s.echo = false
		default:
			s.commandFailed(line)
		}
	case "set-output":
		// SetOutputCommandExtension: the output is stored, and the value
		// logged at debug level (the runner prefixes the expression path).
		s.debug(fmt.Sprintf("%s='%s'", cmd.props["name"], cmd.data))
	case "save-state":
		s.debug(fmt.Sprintf("Save intra-action state %s = %s", cmd.props["name"], cmd.data))
	case "set-env", "add-path":
		// Disabled unless ACTIONS_ALLOW_UNSECURE_COMMANDS: the extension
		// throws and the manager reports the whole command line.
		s.commandFailed(line)
	}
	// add-matcher and remove-matcher only read files: nothing to show.
	return true
}

// commandFailed is the catch block of TryProcessCommand for an extension
// that does not omit its echo.
func (s *Simulator) commandFailed(line string) {
	s.addIssue("error", fmt.Sprintf("Unable to process command '%s' successfully.", line), nil)
}
