package redact

import (
	"regexp"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// outputLine is how cdkd deploy prints a stack output: "  Stack.Key = value".
var outputLine = regexp.MustCompile(`^(\s*(\S+)\.([^.\s]+) = )(.*)$`)

// OutputLog hides, in cdkd deploy's log, the value of each stack output
// the assembly marks secret. cdkd prints its outputs
// ("  StackA.DbPassword = value") before the action reads them back, so
// value matching alone cannot protect a value only its position makes
// secret.
//
// cdkd prints a multi-line value raw, so the lines after a hidden value
// continue it, and any of them may look like anything: a blank line, or
// "x.y = z". They are left out up to the next output cdkd prints for the
// same stack, a line naming one of the outputs the stack's template
// declares that was not printed yet (cdkd prints each once), or the end of
// the block: a blank line followed by the line cdkd prints after it
// ("✓ Deployment completed successfully", "✓ Dry run completed",
// "⚠ Stack …", "Deploying stack: …"). Each hidden value is added to Set,
// line by line, so that nothing printed later shows it.
type OutputLog struct {
	// Secret says whether a stack's output, as cdkd deploy names them,
	// is secret (see SecretOutputNamed).
	Secret func(stack, output string) bool
	// Declared says whether the stack's template declares the output (see
	// OutputDeclared).
	Declared func(stack, output string) bool
	Set      *secrets.Set

	hiding  string          // the stack whose value is being hidden, "" when none
	held    []string        // blank lines inside a hidden value, held until the next line tells
	printed map[string]bool // "stack.output" of each output line seen
}

// Line takes one line of the log, with its line ending if it has one, and
// returns the lines that may be printed now: none for a line left out, and
// more than one when a held blank line turns out to end a hidden value.
func (l *OutputLog) Line(line string) []string {
	text := strings.TrimRight(line, "\r\n")
	m := outputLine.FindStringSubmatch(text)
	if l.hiding != "" {
		held := l.held
		l.held = nil
		switch {
		case len(held) > 0 && blockEnd.MatchString(text):
			l.hiding = ""
			return append(held, line)
		case m != nil && m[2] == l.hiding && l.Declared != nil && l.Declared(m[2], m[3]) && !l.printed[m[2]+"."+m[3]]:
			l.hiding = "" // the next output: handled below
		case strings.TrimSpace(text) == "":
			l.held = append(held, line)
			return nil
		default:
			if l.Set != nil {
				l.Set.Add(text, "secret output (continued)")
			}
			return nil
		}
	}
	if m == nil {
		return []string{line}
	}
	if l.printed == nil {
		l.printed = map[string]bool{}
	}
	l.printed[m[2]+"."+m[3]] = true
	if !l.Secret(m[2], m[3]) {
		return []string{line}
	}
	l.hiding = m[2]
	if l.Set != nil {
		l.Set.Add(m[4], "secret output "+m[2]+"."+m[3])
	}
	return []string{m[1] + secrets.Replacement + line[len(text):]}
}

// blockEnd is the line cdkd deploy prints, after a blank line, once a
// stack's outputs are printed: its outcome, or the next stack.
var blockEnd = regexp.MustCompile(`^(✓ Deployment completed successfully|✓ Dry run completed|⚠ Stack |Deploying stack: )`)

// OutputDeclared asks the assembly whether a stack's template declares an
// output (any region's stack of that name: the log does not say which).
func OutputDeclared(asm *assembly.Assembly, stack, output string) bool {
	if asm == nil {
		return false
	}
	for _, st := range asm.Stacks {
		if st.Name != stack && st.DisplayName != stack {
			continue
		}
		for _, o := range st.Outputs {
			if o.Name == output {
				return true
			}
		}
	}
	return false
}

// SecretOutputNamed asks the assembly whether a stack's output, as cdkd
// deploy's log names them, reads a secret position. The name may be any
// region's stack: the log does not say which, so any one marking it
// secret makes it secret. False without an assembly.
func SecretOutputNamed(asm *assembly.Assembly, stack, output string) bool {
	if asm == nil {
		return false
	}
	for _, st := range asm.Stacks {
		if (st.Name == stack || st.DisplayName == stack) && st.SecretOutput(output) != model.SecretNone {
			return true
		}
	}
	return false
}
