package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A saved bare `cdkd drift --json` keeps cdkd's exit code only when it is
// given: cdkd 0.284's JSON names no cause, and samples 25 (refused, exit 2)
// and 86 (ssm-secure, exit 0) are the same shape. Without cdkd-exit-code
// the check is incomplete and says the exit code is unknown; it never
// renders "No drift" nor cites an exit code no cdkd run produced.
func TestSavedDriftKeepsCdkdsExitCode(t *testing.T) {
	refused := abs(t, "../../testdata/cdkd-samples/25-drift-stackC-refused-json.stdout")
	ssmSecure := abs(t, "../../testdata/cdkd-samples/86-drift-stackD-ssmsecure-json.stdout")
	tests := []struct {
		name, file, exit string
		status           string
		want, never      []string
		reportExit       int
	}{
		{
			name: "refused, exit code not given", file: refused, status: "incomplete", reportExit: -2,
			want:  []string{"cdkd's exit code is unknown"},
			never: []string{"No drift", "cdkd exited 0", "It exited 2"},
		},
		{
			name: "refused, cdkd exited 2", file: refused, exit: "2", status: "incomplete", reportExit: 2,
			want:  []string{"🚫 **Refused**", "inferred from cdkd's exit code"},
			never: []string{"No drift", "cdkd exited 0", "exit code is unknown"},
		},
		{
			name: "ssm-secure, exit code not given", file: ssmSecure, status: "incomplete", reportExit: -2,
			want:  []string{"cdkd's exit code is unknown"},
			never: []string{"No drift", "cdkd exited 0"},
		},
		{
			name: "ssm-secure, cdkd exited 0", file: ssmSecure, exit: "0", status: "clean", reportExit: 0,
			want:  []string{"🔒 **Unresolved token**", "inferred from cdkd's exit code"},
			never: []string{"exit code is unknown", "Refused"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newDriftWorkspace(t)
			in := map[string]string{"from-json": tc.file, "fail-on-incomplete": "false"}
			if tc.exit != "" {
				in["cdkd-exit-code"] = tc.exit
			}
			res := w.run(in)
			assert.Equal(t, res.code, 0, res.stdout)
			assert.Equal(t, res.outputs["drift-status"], tc.status, res.summary)
			for _, s := range tc.want {
				assert.Assert(t, is.Contains(res.summary, s))
			}
			for _, s := range tc.never {
				assert.Assert(t, !strings.Contains(res.summary, s), "%q in:\n%s", s, res.summary)
			}
			var report struct {
				Verdict struct {
					ExitCode int `json:"exitCode"`
				} `json:"verdict"`
			}
			saved := readFile(t, res.outputs["report-json"])
			assert.NilError(t, json.Unmarshal([]byte(saved), &report))
			assert.Equal(t, report.Verdict.ExitCode, tc.reportExit, "the report JSON carries cdkd's exit code, or says it is unknown")

			// The action's own report carries it: rendered again, the
			// same status and the same words.
			again := filepath.Join(w.dir, "again.json")
			writeFile(t, again, saved)
			re := w.run(map[string]string{"from-json": again, "fail-on-incomplete": "false"})
			assert.Equal(t, re.code, 0, re.stdout)
			for _, s := range tc.want {
				assert.Assert(t, is.Contains(re.summary, s))
			}
		})
	}
}

// cdkd-exit-code takes only what cdkd drift exits with, and only with a
// saved report.
func TestCdkdExitCodeInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]string
		want string
	}{
		{"not an exit code of cdkd drift", map[string]string{"from-json": abs(t, "../../testdata/cdkd-samples/25-drift-stackC-refused-json.stdout"), "cdkd-exit-code": "3"},
			"input cdkd-exit-code: expected the exit code cdkd drift ended with: 0, 1 or 2, got \"3\""},
		{"without from-json", map[string]string{"all": "true", "cdkd-exit-code": "2"},
			"input cdkd-exit-code: it is the exit code of the cdkd drift run whose JSON from-json holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDriftWorkspace(t)
			res := w.run(tc.in)
			assert.Equal(t, res.code, 2, res.stdout)
			assert.Equal(t, res.outputs["failure-reason"], "bad-input")
			assert.Assert(t, is.Contains(res.stdout, tc.want))
			assert.Assert(t, res.summary != "", "the job summary is written on a failure too")
		})
	}
}
