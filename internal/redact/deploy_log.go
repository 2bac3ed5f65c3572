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
// secret. The lines that follow a hidden value continue it (a multi-line
// value) up to a blank line or the next output line, and are left out.
// Each hidden value is added to Set, so that nothing printed later shows
// it. It holds one bit of state: whether it is inside a hidden value.
type OutputLog struct {
	// Secret says whether a stack's output, as cdkd deploy names them,
	// is secret (see SecretOutputNamed).
	Secret func(stack, output string) bool
	Set    *secrets.Set

	hiding bool
}

// Line takes one line of the log, with its line ending if it has one, and
// returns it as it may be printed; keep is false for a line left out.
func (l *OutputLog) Line(line string) (out string, keep bool) {
	text := strings.TrimRight(line, "\r\n")
	m := outputLine.FindStringSubmatch(text)
	switch {
	case m != nil && l.Secret(m[2], m[3]):
		l.hiding = true
		if l.Set != nil {
			l.Set.Add(m[4], "secret output "+m[2]+"."+m[3])
		}
		return m[1] + secrets.Mask + line[len(text):], true
	case m != nil || strings.TrimSpace(text) == "":
		l.hiding = false
	case l.hiding:
		if l.Set != nil {
			l.Set.Add(text, "secret output (continued)")
		}
		return "", false
	}
	return line, true
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
