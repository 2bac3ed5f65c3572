package cdkd

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestStripANSI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[31mError: connect ECONNREFUSED 127.0.0.1:1\x1b[0m", "Error: connect ECONNREFUSED 127.0.0.1:1"},
		{"[1/7] \x1b[32m✓\x1b[0m \x1b[1mExtraTopic17EFD352\x1b[0m \x1b[90m(AWS::SNS::Topic)\x1b[0m", "[1/7] ✓ ExtraTopic17EFD352 (AWS::SNS::Topic)"},
		{"\x1b]8;;https://example.com\x07link\x1b]8;;\x07", "link"},
		{"\x1b[2K\x1b[1Gline\r", "line"},
		{"plain", "plain"},
	}
	for _, tc := range tests {
		assert.Equal(t, StripANSI(tc.in), tc.want)
	}
}

func TestLastErrorLine(t *testing.T) {
	tests := []struct {
		name string
		tail []string
		want string
	}{
		{name: "empty", tail: nil, want: ""},
		{name: "plain Error", tail: []string{"Synthesizing CDK app...", "Error: Region is missing"}, want: "Error: Region is missing"},
		{
			name: "named error before a stack trace",
			tail: []string{"LockError: Failed to acquire lock", "    at LockManager.acquire (lock.js:1:2)", "    at main (cli.js:3:4)"},
			want: "LockError: Failed to acquire lock",
		},
		{name: "the last error wins", tail: []string{"Error: first", "AccessDeniedException: second"}, want: "AccessDeniedException: second"},
		{name: "coloured", tail: []string{"\x1b[31mError: boom\x1b[0m"}, want: "Error: boom"},
		{name: "no error line: last line", tail: []string{"something", "went wrong", ""}, want: "went wrong"},
		{name: "a sentence about errors is not an error line", tail: []string{"Error handling: ok", "Retrying..."}, want: "Retrying..."},
		{name: "detail list", tail: []string{"Error: 1 node(s) failed:", "  - stack:A: boom"}, want: "Error: 1 node(s) failed: stack:A: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, LastErrorLine(tc.tail), tc.want)
		})
	}
}
