package redact

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// cdkd deploy prints its outputs before they can be read back: an output
// only its position makes secret is hidden in the log line by line, and
// learned, and so is a multi-line value's continuation.
func TestOutputLog(t *testing.T) {
	asm := loadAssembly(t)
	secret := func(stack, output string) bool { return SecretOutputNamed(asm, stack, output) }
	declared := func(stack, output string) bool { return OutputDeclared(asm, stack, output) }
	tests := []struct {
		name    string
		in      []string
		want    []string
		learned []string
	}{
		{
			name:    "a secret output's value is hidden, others stay",
			in:      []string{"Outputs:\n", "  App.StageOut = prod\n", "  App.PwOut = noecho-pw-value\r\n"},
			want:    []string{"Outputs:\n", "  App.StageOut = prod\n", "  App.PwOut = ***\r\n"},
			learned: []string{"noecho-pw-value"},
		},
		{
			name:    "a continuation is left out up to the next output the template declares",
			in:      []string{"  App.PwOut = {\n", "  \"pw\": \"nested-pw-value\"\n", "\n", "  App.StageOut = prod\n", "done"},
			want:    []string{"  App.PwOut = ***\n", "  App.StageOut = prod\n", "done"},
			learned: []string{"{", `"pw": "nested-pw-value"`},
		},
		{
			// cdkd prints a multi-line value raw: its own lines may be
			// blank, or look like an output line.
			name: "lines that look like the end of a value are hidden too",
			in: []string{"\n", "Outputs:\n", "  App.PwOut = line-one-pw-value\n", "\n", "cfg.user = admin-pw-value\n",
				"  App.PwOut = again-pw-value\n", "  Other.StageOut = other-pw-value\n", "\n", "✓ Deployment completed successfully\n", "\n", "Deploying stack: Next\n"},
			want:    []string{"\n", "Outputs:\n", "  App.PwOut = ***\n", "\n", "✓ Deployment completed successfully\n", "\n", "Deploying stack: Next\n"},
			learned: []string{"line-one-pw-value", "cfg.user = admin-pw-value", "App.PwOut = again-pw-value", "Other.StageOut = other-pw-value"},
		},
		{
			name:    "the last value ends at the next stack",
			in:      []string{"  App.StageOut = prod\n", "  App.PwOut = a-pw-value\n", "tail-pw-value\n", "\n", "Deploying stack: Next\n"},
			want:    []string{"  App.StageOut = prod\n", "  App.PwOut = ***\n", "\n", "Deploying stack: Next\n"},
			learned: []string{"a-pw-value", "tail-pw-value"},
		},
		{
			name: "a stack the assembly does not hold is not secret by position",
			in:   []string{"  Elsewhere.PwOut = shown-value\n"},
			want: []string{"  Elsewhere.PwOut = shown-value\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := secrets.NewSet()
			l := OutputLog{Secret: secret, Declared: declared, Set: set}
			var got []string
			for _, line := range tc.in {
				got = append(got, l.Line(line)...)
			}
			assert.DeepEqual(t, got, tc.want)
			assert.Equal(t, set.Len(), len(tc.learned))
			for _, v := range tc.learned {
				if len(v) >= secrets.MinRedactRunes {
					assert.Equal(t, set.Redact("log "+v), "log ***", v)
				}
			}
			assert.Assert(t, !strings.Contains(strings.Join(got, ""), "pw-value"))
		})
	}
	assert.Assert(t, !SecretOutputNamed(nil, "App", "PwOut"), "no assembly knows no position")
	assert.Assert(t, SecretOutputNamed(asm, "App", "PwOut"))
	assert.Assert(t, !SecretOutputNamed(asm, "App", "StageOut"))
	assert.Assert(t, OutputDeclared(asm, "App", "StageOut"))
	assert.Assert(t, !OutputDeclared(asm, "App", "user"))
}
