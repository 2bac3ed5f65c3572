package cdkd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// sample loads a real cdkd capture from testdata/samples as the Result a
// Runner would have produced for it.
func sample(t *testing.T, name string, args ...string) Result {
	t.Helper()
	read := func(ext string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "samples", name+ext))
		assert.NilError(t, err)
		return b
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(read(".exit"))))
	assert.NilError(t, err)
	return Result{Args: args, Stdout: read(".stdout"), StderrTail: tailOf(read(".stderr")), ExitCode: code}
}

// tailOf is the StderrTail a Runner keeps for this stderr.
func tailOf(stderr []byte) []string {
	tail := tailBuffer{max: DefaultTailLines}
	w := &lineWriter{emit: func(l string) { tail.add(StripANSI(l)) }}
	_, _ = w.Write(stderr)
	w.flush()
	return tail.cut(nil)
}

func samplePath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "samples", name))
	assert.NilError(t, err)
	return p
}
