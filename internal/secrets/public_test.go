package secrets

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A secret that also occurs inside a literal the template writes in public
// is not redacted there (it would tell the secret by comparison with the
// template), and is redacted everywhere else; the literal is an oracle,
// named with the secret's source.
func TestPublicLiteralHoldingASecret(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"inside the literal", "queue fixture-queue-v1 created", "queue fixture-queue-v1 created"},
		{"alone", "password fixture-queue", "password ***"},
		{"alone beside the literal", "fixture-queue-v1 reads fixture-queue", "fixture-queue-v1 reads ***"},
		{"in another name", "fixture-queue-v2", "***-v2"},
		{"encoded", "Zml4dHVyZS1xdWV1ZQ==", "***"},
	}
	s := NewSet()
	s.Add("fixture-queue", "NoEcho parameter App/QueueParam default")
	s.Public([]string{"fixture-queue-v1", "prod"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, s.Redact(tc.text), tc.want)
			assert.Equal(t, s.Contains(tc.text), tc.want != tc.text)
			assert.Equal(t, s.RedactLoose(tc.text), tc.want)
		})
	}
	assert.DeepEqual(t, s.Oracles(), []Oracle{{Literal: "fixture-queue-v1", Sources: []string{"NoEcho parameter App/QueueParam default"}}})
	// The runner is still given the secret: the log masks it inside the literal.
	assert.Assert(t, is.Contains(s.MaskCommands(), "fixture-queue"))
}

// Public may come after the values (an assembly cdkd synthesized).
func TestPublicAfterTheValues(t *testing.T) {
	s := NewSet()
	s.Add("fixture-queue", "NoEcho parameter QueueParam")
	assert.Equal(t, s.Redact("fixture-queue-v1"), "***-v1")
	s.Public([]string{"fixture-queue-v1"})
	assert.Equal(t, s.Redact("fixture-queue-v1"), "fixture-queue-v1")
	assert.Equal(t, len(s.Oracles()), 1)
}

// A value whose secrecy the template cannot decide is registered (runner
// and redaction) only when it is 8 characters or more and occurs in no
// public literal.
func TestAddUndecided(t *testing.T) {
	tests := []struct {
		value string
		want  bool
	}{
		{"prod", false},
		{"us-east-1", false}, // in a literal
		{"short-7", false},   // 7 characters
		{"old-token-8f3a", true},
		{"  old-token-8f3a  ", true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			s := NewSet()
			s.Public([]string{"arn:aws:lambda:us-east-1:123456789012:function:orders-prod-handler"})
			assert.Equal(t, s.AddUndecided(tc.value, "old value at Fn.Environment"), tc.want)
			assert.Equal(t, len(s.MaskCommands()) > 0, tc.want)
			assert.Equal(t, s.Contains(tc.value), tc.want)
		})
	}
}

// A derived value the runner derives itself is redacted but never given to
// ::add-mask::, until something declares it; one that occurs in a public
// literal is not registered at all.
func TestAddDerivedLeavesTheRunnerOut(t *testing.T) {
	s := NewSet()
	s.Public([]string{"orders-prod-handler"})
	assert.Assert(t, s.addDerived("fragment-6x", "part of mask-values line 1", 6, false))
	assert.Assert(t, !s.addDerived("orders-prod", "part of mask-values line 1", 6, false), "in a public literal")
	assert.Equal(t, s.Redact("a fragment-6x b"), "a *** b")
	assert.Assert(t, !s.Contains("orders-prod"))
	assert.DeepEqual(t, s.MaskCommands(), []string{})
	s.Add("fragment-6x", "mask-values line 2")
	assert.DeepEqual(t, s.MaskCommands(), []string{"fragment-6x"})
}

// ForgetPublic redacts inside the literals again, as a layout v1 to v3
// review was redacted.
func TestForgetPublic(t *testing.T) {
	s := NewSet()
	s.Add("fixture-queue", "NoEcho parameter QueueParam")
	s.Public([]string{"fixture-queue-v1"})
	assert.Equal(t, s.Redact("fixture-queue-v1"), "fixture-queue-v1")
	s.ForgetPublic()
	assert.Equal(t, s.Redact("fixture-queue-v1"), "***-v1")
	assert.Assert(t, s.Contains("fixture-queue-v1"))
	assert.Equal(t, len(s.Oracles()), 0)
	assert.Assert(t, s.AddUndecided("old-token-1234", "x"), "no literal holds it any more")
}

// BenchmarkRedactPublicLiterals measures what leaving public literals
// alone costs a redaction of 1 MiB: none told, or 10 that hold a secret.
func BenchmarkRedactPublicLiterals(b *testing.B) {
	text := strings.Repeat("queue fixture-queue-v1 reads fixture-queue and more text here\n", 1<<20/62)
	for _, n := range []int{0, 10} {
		b.Run(fmt.Sprintf("%d oracles", n), func(b *testing.B) {
			s := NewSet()
			s.Add("fixture-queue", "NoEcho parameter QueueParam")
			lits := []string{}
			for i := range n {
				lits = append(lits, fmt.Sprintf("fixture-queue-v%d", i+1))
			}
			s.Public(lits)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				s.Redact(text)
			}
		})
	}
}
