package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Every command the binary accepts has a Run: a command added to config
// but not here would fail as "not supported" at run time.
func TestEveryCommandRuns(t *testing.T) {
	for _, c := range config.Commands {
		_, ok := commands[c]
		assert.Assert(t, ok, "command %s has no Run", c)
	}
	assert.Equal(t, len(commands), len(config.Commands))
}

// finish is the one place an Outcome becomes the exit code, the
// failure-reason output, the error line and the failure summary.
func TestFinishReportsTheOutcome(t *testing.T) {
	const secret = "hunter2-very-secret"
	for _, tc := range []struct {
		name        string
		o           Outcome
		summaryDone bool
		code        ExitCode
		reason      string
		errorLine   string // "" when no error line is expected
		summary     string // "" when no summary is expected
	}{
		{name: "success", o: succeeded(), code: ExitOK},
		{
			name: "failure writes the summary the command did not", o: failed(ReasonCdkdFailed, errors.New("cdkd diff: boom "+secret)),
			code: ExitFailure, reason: "cdkd-failed", errorLine: "::error::cdkd diff: boom ***", summary: "## ❌ cdkd diff failed",
		},
		{
			name: "failure keeps the command's summary", o: failed(ReasonAPIFailed, errors.New("GitHub said no")), summaryDone: true,
			code: ExitFailure, reason: "api-failed", errorLine: "::error::GitHub said no",
		},
		{
			name: "bad input exits 2", o: failed(ReasonBadInput, &config.InputError{Input: "stacks", Msg: "expected names"}),
			code: ExitBadInput, reason: "bad-input", errorLine: "::error::input stacks: expected names", summary: "## ❌ cdkd diff failed",
		},
		{
			name: "a result the workflow fails on", o: failedOn(ReasonChanges, "cdkd diff found changes and fail-on-changes is true"), summaryDone: true,
			code: ExitChanges, reason: "changes", errorLine: "::error::cdkd diff found changes and fail-on-changes is true",
		},
		{
			name: "a dry-run refusal already said why", o: Outcome{Reason: reason.DiffChanged, Code: ExitChanges}, summaryDone: true,
			code: ExitChanges, reason: "diff-changed",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			r := testEnv(t, &log)
			r.set.Add(secret, "test")
			r.cfg.Command = config.CommandDiff
			r.summaryWritten = tc.summaryDone

			code := r.finish(tc.o)
			r.out.Close()
			summary, err := os.ReadFile(r.app.Getenv("GITHUB_STEP_SUMMARY"))
			assert.NilError(t, err)

			assert.Equal(t, code, tc.code)
			assert.Equal(t, r.outputs[OutputFailureReason], tc.reason)
			if tc.errorLine == "" {
				assert.Assert(t, !strings.Contains(log.String(), "::error::"), log.String())
			} else {
				assert.Assert(t, strings.Contains(log.String(), tc.errorLine), log.String())
			}
			if tc.summary == "" {
				assert.Equal(t, string(summary), "")
			} else {
				assert.Assert(t, strings.HasPrefix(string(summary), tc.summary), string(summary))
			}
			assert.Assert(t, !strings.Contains(log.String()+string(summary), secret))
		})
	}
}

// testEnv is an Env that logs to log as inside a runner.
func testEnv(t *testing.T, log *bytes.Buffer) *Env {
	t.Helper()
	summary := filepath.Join(t.TempDir(), "summary")
	assert.NilError(t, os.WriteFile(summary, nil, 0o644))
	getenv := func(k string) string {
		switch k {
		case "GITHUB_ACTIONS":
			return "true"
		case "GITHUB_STEP_SUMMARY":
			return summary
		}
		return ""
	}
	a := &App{Getenv: getenv, Stdout: log, Stderr: log}
	r := &Env{app: a}
	r.set = secrets.NewSet()
	r.out = secrets.NewLineWriter(log, r.set)
	r.runner = workflow.New(r.out, getenv)
	r.runner.Redact = r.set.Redact
	r.raw = workflow.New(log, getenv)
	r.outputs = map[string]string{}
	return r
}
