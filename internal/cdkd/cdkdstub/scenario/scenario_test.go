package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name string
		inv  Invocation
		args []string
		env  map[string]string
		why  string // empty: matches
	}{
		{name: "exact", inv: Invocation{Args: []string{"diff", "--json"}}, args: []string{"diff", "--json"}},
		{name: "exact mismatch", inv: Invocation{Args: []string{"diff", "--json"}}, args: []string{"diff", "--all", "--json"}, why: `want ["diff" "--json"]`},
		{name: "contains", inv: Invocation{ArgsContain: []string{"--json", "diff"}}, args: []string{"diff", "--all", "--json"}},
		{name: "contains missing", inv: Invocation{ArgsContain: []string{"--fail"}}, args: []string{"diff"}, why: `lacks "--fail"`},
		{name: "env ok", inv: Invocation{Env: map[string]string{"CDKD_NO_LIVE": "1"}}, env: map[string]string{"CDKD_NO_LIVE": "1"}},
		{name: "env wrong", inv: Invocation{Env: map[string]string{"CDKD_NO_LIVE": "1"}}, env: map[string]string{"CDKD_NO_LIVE": "0"}, why: `env CDKD_NO_LIVE="0", want "1"`},
		{name: "env unset", inv: Invocation{Env: map[string]string{"CDKD_NO_LIVE": "1"}}, why: "env CDKD_NO_LIVE is unset"},
		{name: "must be unset", inv: Invocation{EnvUnset: []string{"AWS_PROFILE"}}, env: map[string]string{"AWS_PROFILE": "x"}, why: "env AWS_PROFILE is set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := tc.inv.Match(tc.args, env(tc.env))
			assert.Equal(t, ok, tc.why == "")
			if tc.why != "" {
				assert.Check(t, is.Contains(why, tc.why))
			}
		})
	}
}

func TestSelect(t *testing.T) {
	invs := []Invocation{
		{Args: []string{"deploy"}, Exit: 1},
		{Args: []string{"deploy"}, Exit: 0},
		{Args: []string{"--version"}, Repeat: true},
	}
	var used []int
	pick := func(args ...string) int {
		i, _ := Select(invs, used, args, env(nil))
		if i >= 0 {
			used = append(used, i)
		}
		return i
	}
	assert.Equal(t, pick("deploy"), 0)
	assert.Equal(t, pick("--version"), 2)
	assert.Equal(t, pick("deploy"), 1, "the second identical call gets the next answer")
	assert.Equal(t, pick("--version"), 2, "a repeating invocation answers again")
	i, why := Select(invs, used, []string{"deploy"}, env(nil))
	assert.Equal(t, i, -1)
	assert.Equal(t, len(why), 1, "only unused invocations are reasons")
	assert.DeepEqual(t, Unused(invs, []int{0}), []int{1})
}

func TestWriteLoadAndState(t *testing.T) {
	dir := t.TempDir()
	invs := []Invocation{{
		Args: []string{"diff"}, Stdout: "[]", StderrLines: []Line{{Text: "x", DelayMs: 5}},
		OnSigint: &Sigint{Stderr: "bye\n", Exit: 130},
	}}
	assert.NilError(t, Write(dir, invs))
	got, err := Load(dir)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, invs)

	assert.NilError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(`[{"argz":["diff"]}]`), 0o644))
	_, err = Load(dir)
	assert.ErrorContains(t, err, `unknown field "argz"`)

	assert.Equal(t, StatePath(dir, ""), filepath.Join(dir, ".cdkdstub-state.json"))
	assert.Equal(t, StatePath(dir, "/x/log.jsonl"), "/x/log.jsonl.state")
	used, err := ReadUsed(filepath.Join(dir, "missing"))
	assert.NilError(t, err)
	assert.Check(t, used == nil)
	calls, err := ReadLog(filepath.Join(dir, "missing"))
	assert.NilError(t, err)
	assert.Check(t, calls == nil)
}
