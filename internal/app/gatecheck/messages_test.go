package gatecheck

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestJoinReasonSaysNothingTwice(t *testing.T) {
	tests := []struct{ prefix, reason, want string }{
		{"cdkd deploy failed", "Error: boom", "cdkd deploy failed: Error: boom"},
		{"cdkd deploy failed", "cdkd deploy failed: Error: boom", "cdkd deploy failed: Error: boom"},
		{"cdkd deploy failed", "CDKD deploy failed (exit 1)", "cdkd deploy failed (exit 1)"},
		{"Deploy failed: cdkd deploy failed", "cdkd deploy failed: boom", "Deploy failed: cdkd deploy failed: boom"},
		{"Deploy failed", "", "Deploy failed"},
		{"Deploy failed: cdkd deploy failed", "Error: cdkd deploy failed: 1 node(s) failed", "Deploy failed: cdkd deploy failed: 1 node(s) failed"},
		{"cdkd deploy failed", "Error: 1 node(s) failed", "cdkd deploy failed: Error: 1 node(s) failed"},
		{"cdkd deploy", "cdkd deployment went wrong", "cdkd deploy: cdkd deployment went wrong"},
	}
	for _, tc := range tests {
		assert.Equal(t, joinReason(tc.prefix, tc.reason), tc.want)
	}
}
