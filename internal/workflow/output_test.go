package workflow

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestSetOutputCannotInjectOutputs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	r, _ := newTestRunner(map[string]string{"GITHUB_OUTPUT": path})

	want := map[string]string{
		"plain":          "hello",
		"empty":          "",
		"multi-line":     "line 1\nline 2",
		"trailing_nl":    "ends with newline\n",
		"crlf":           "windows\r\nlines\r\n",
		"fake-delimiter": "x\nghadelimiter_00000000000000000000000000000000\nother<<EOF\nevil\nEOF\ninjected=yes",
		"heredoc":        "other<<EOF\nevil\nEOF",
		"equals":         "\nname=bad\n",
		"set-output":     "\n::set-output name=x::y",
	}
	names := []string{"plain", "empty", "multi-line", "trailing_nl", "crlf", "fake-delimiter", "heredoc", "equals", "set-output"}
	for _, name := range names {
		assert.NilError(t, r.SetOutput(name, want[name]))
	}

	raw, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.DeepEqual(t, parseOutputFile(t, string(raw)), want)
	assert.DeepEqual(t, r.Outputs(), want)

	header := regexp.MustCompile(`^plain<<ghadelimiter_[0-9a-f]{32}\n`)
	assert.Assert(t, header.MatchString(string(raw)), string(raw))
}

func TestSetOutputFreshDelimiterPerValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	r, _ := newTestRunner(map[string]string{"GITHUB_OUTPUT": path})
	assert.NilError(t, r.SetOutput("a", "1"))
	assert.NilError(t, r.SetOutput("b", "2"))

	raw, err := os.ReadFile(path)
	assert.NilError(t, err)
	delims := regexp.MustCompile(`(?m)^[ab]<<(.*)$`).FindAllStringSubmatch(string(raw), -1)
	assert.Equal(t, len(delims), 2)
	assert.Assert(t, delims[0][1] != delims[1][1])
}

func TestSetOutputRegeneratesDelimiterFoundInValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	r, _ := newTestRunner(map[string]string{"GITHUB_OUTPUT": path})
	rnd, tokens := fixedRand(0x11, 0x22)
	r.Rand = rnd

	// The value guesses the first delimiter; it must not be used.
	value := "before\nghadelimiter_" + tokens[0] + "\nevil<<X\nX"
	assert.NilError(t, r.SetOutput("result", value))

	raw, err := os.ReadFile(path)
	assert.NilError(t, err)
	second := "ghadelimiter_" + tokens[1]
	assert.Equal(t, string(raw), "result<<"+second+"\n"+value+"\n"+second+"\n")
	assert.DeepEqual(t, parseOutputFile(t, string(raw)), map[string]string{"result": value})
}

func TestSetOutputErrors(t *testing.T) {
	tests := []struct {
		name    string
		output  string
		rand    func() *strings.Reader
		wantErr string
	}{
		{name: "empty name", output: "", wantErr: "name must match"},
		{name: "equals", output: "a=b", wantErr: "name must match"},
		{name: "heredoc", output: "a<<EOF", wantErr: "name must match"},
		{name: "space", output: "a b", wantErr: "name must match"},
		{name: "newline", output: "a\nb", wantErr: "name must match"},
		{name: "unicode", output: "é", wantErr: "name must match"},
		{name: "no randomness", output: "ok", rand: func() *strings.Reader { return strings.NewReader("") }, wantErr: "read random bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "output")
			r, _ := newTestRunner(map[string]string{"GITHUB_OUTPUT": path})
			if tt.rand != nil {
				r.Rand = tt.rand()
			}
			err := r.SetOutput(tt.output, "v")
			assert.ErrorContains(t, err, tt.wantErr)
			_, statErr := os.Stat(path)
			assert.Assert(t, os.IsNotExist(statErr), "nothing may be written")
			assert.Equal(t, len(r.Outputs()), 0)
		})
	}
}

func TestSetOutputWriteError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "output")
	r, _ := newTestRunner(map[string]string{"GITHUB_OUTPUT": path})
	assert.ErrorContains(t, r.SetOutput("a", "b"), "set output a: open ")
}

func TestSetOutputLocalMode(t *testing.T) {
	r, out := newTestRunner(nil)
	assert.NilError(t, r.SetOutput("has-changes", "true"))
	assert.NilError(t, r.SetOutput("has-changes", "false"))
	assert.DeepEqual(t, r.Outputs(), map[string]string{"has-changes": "false"})
	assert.Equal(t, out.String(), "")

	// Outputs is a copy.
	r.Outputs()["x"] = "y"
	assert.Equal(t, len(r.Outputs()), 1)
}
