package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// Every entry of the table of commands is whole: a Run, a help line
// naming it, and answers to whether it needs cdkd and the fingerprint key;
// no name is there twice.
func TestEveryCommandIsWhole(t *testing.T) {
	seen := map[config.Command]bool{}
	for _, c := range commandTable {
		assert.Assert(t, !seen[c.Name], "command %s is in the table twice", c.Name)
		seen[c.Name] = true
		assert.Assert(t, c.run != nil && c.cdkd != nil && c.keys != nil, "command %s has no run, cdkd or keys", c.Name)
		assert.Assert(t, strings.HasPrefix(c.help, string(c.Name)+": "), "command %s: its help starts %q", c.Name, c.help)
	}
}

// finish is the one place an outcome.Outcome becomes the exit code, the
// failure-reason output, the error line and the failure summary.
func TestFinishReportsTheOutcome(t *testing.T) {
	const secret = "hunter2-very-secret"
	for _, tc := range []struct {
		name        string
		o           outcome.Outcome
		summaryDone bool
		code        ExitCode
		reason      string
		errorLine   string // "" when no error line is expected
		summary     string // "" when no summary is expected
	}{
		{name: "success", o: outcome.Succeeded(), code: ExitOK},
		{
			name: "failure writes the summary the command did not", o: outcome.Failed(reason.CdkdFailed, errors.New("cdkd diff: boom "+secret)),
			code: ExitFailure, reason: "cdkd-failed", errorLine: "::error::cdkd diff: boom ***", summary: "## ❌ cdkd diff failed",
		},
		{
			name: "failure keeps the command's summary", o: outcome.Failed(reason.APIFailed, errors.New("GitHub said no")), summaryDone: true,
			code: ExitFailure, reason: "api-failed", errorLine: "::error::GitHub said no",
		},
		{
			name: "bad input exits 2", o: outcome.Failed(reason.BadInput, &config.InputError{Input: "stacks", Msg: "expected names"}),
			code: ExitBadInput, reason: "bad-input", errorLine: "::error::input stacks: expected names", summary: "## ❌ cdkd diff failed",
		},
		{
			name: "a result the workflow fails on", o: outcome.FailedOn(reason.Changes, "cdkd diff found changes and fail-on-changes is true"), summaryDone: true,
			code: ExitChanges, reason: "changes", errorLine: "::error::cdkd diff found changes and fail-on-changes is true",
		},
		{
			name: "a dry-run refusal already said why", o: outcome.Outcome{Reason: reason.DiffChanged, Code: reason.ExitChanges}, summaryDone: true,
			code: ExitChanges, reason: "diff-changed",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			e := testEnv(t, &log)
			e.parts.Secrets.Set.Add(secret, "test")
			e.cfg.Command = config.CommandDiff
			const commands = "the command's own report\n"
			if tc.summaryDone {
				e.parts.Channels.Summary(commands)
			}

			code := e.finish(tc.o)
			e.parts.Out.Close()
			summary, err := os.ReadFile(e.app.Getenv("GITHUB_STEP_SUMMARY"))
			assert.NilError(t, err)

			assert.Equal(t, code, tc.code)
			assert.Equal(t, e.parts.Channels.Output(publisher.OutputFailureReason), tc.reason)
			if tc.errorLine == "" {
				assert.Assert(t, !strings.Contains(log.String(), "::error::"), log.String())
			} else {
				assert.Assert(t, strings.Contains(log.String(), tc.errorLine), log.String())
			}
			switch {
			case tc.summaryDone:
				assert.Equal(t, string(summary), commands, "finish adds nothing to the command's summary")
			case tc.summary == "":
				assert.Equal(t, string(summary), "")
			default:
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
	return a.newEnv()
}
