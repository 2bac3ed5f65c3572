package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// cdkdRunner runs cdkd in the working directory with the live renderer off.
func (r *Env) cdkdRunner() *cdkd.Runner {
	path := r.cfg.CdkdPath
	if r.cdkd != nil {
		path = r.cdkd.Path
	}
	// Every call is bounded by timeout-minutes (--version by less).
	return &cdkd.Runner{Path: path, Dir: r.cfg.WorkingDirectory, Timeout: r.cfg.Timeout, EnvBase: r.app.environ()}
}

// cdkdReason is the failure reason for a failed cdkd call: timeout when
// timeout-minutes stopped it, else fallback.
func cdkdReason(err error, fallback FailureReason) FailureReason {
	if errors.Is(err, cdkd.ErrTimeout) {
		return ReasonTimeout
	}
	return fallback
}

// runCdkd streams cdkd's stderr to the log, redacted line by line and inside
// stop-commands, so a template or state value cannot issue workflow commands.
func (r *Env) runCdkd(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	return r.runCdkdVia(ctx, runner, args, nil)
}

// runCdkdVia is runCdkd with each stderr line passed through wrap before
// the redacting log stream (nil: straight to it).
func (r *Env) runCdkdVia(ctx context.Context, runner *cdkd.Runner, args []string, wrap func(io.Writer) io.Writer) (cdkd.Result, error) {
	stream := secrets.NewLineWriter(r.out, r.set)
	runner.Stderr = stream
	if wrap != nil {
		runner.Stderr = wrap(stream)
	}
	r.runner.Group("cdkd " + strings.Join(args, " "))
	resume := r.runner.StopCommands()
	res, err := runner.Run(ctx, args...)
	stream.Close()
	resume()
	r.runner.EndGroup()
	return res, err
}

// positions gives the redactor the assembly's secret positions, if any.
func (r *Env) positions() redact.Positions {
	if r.asm == nil {
		return nil
	}
	return r.asm
}

// fullReportHint says where the unabridged report lives when a channel's
// budget forced a shorter one.
func (r *Env) fullReportHint() string { return prcomment.FullReportHint(r.gh.RunURL) }

// writeLines writes s to w (r.out: it redacts line by line) in pieces of
// whole lines: a large report is megabytes, which w would otherwise hold
// and copy whole.
func writeLines(w io.Writer, s string) {
	const piece = 32 << 10
	for len(s) > 0 {
		n := len(s)
		if n > piece {
			if i := strings.LastIndexByte(s[:piece], '\n'); i >= 0 {
				n = i + 1
			}
		}
		if _, err := io.WriteString(w, s[:n]); err != nil {
			return // the log is gone; nothing else can say so
		}
		s = s[n:]
	}
}

// redactLines redacts cdkd's lines before they reach a report (see
// redact.Lines).
func (r *Env) redactLines(lines []string) []string { return redact.Lines(r.set, lines) }

// cdkJSONStateBucket reads context.cdkd.stateBucket from cdk.json, if any.
func cdkJSONStateBucket(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var f struct {
		Context struct {
			Cdkd struct {
				StateBucket string `json:"stateBucket"`
			} `json:"cdkd"`
		} `json:"context"`
	}
	if json.Unmarshal(b, &f) != nil {
		return ""
	}
	return f.Context.Cdkd.StateBucket
}

// failureText is an error as a report's failure line, which already says
// which cdkd command failed: cdkd's own reason and its exit code.
func (r *Env) failureText(err error) string {
	var cerr *cdkd.Error
	if errors.As(err, &cerr) && cerr.Reason != "" {
		text := cerr.Reason
		switch {
		case errors.Is(err, cdkd.ErrTimeout):
			text += " (timeout-minutes)"
		case cerr.Signal != "":
			text += " (cdkd was killed by " + cerr.Signal + ")"
		default:
			text += fmt.Sprintf(" (cdkd exited %d)", cerr.ExitCode)
		}
		if cerr.Lock != "" {
			text += ". " + cerr.Lock
		}
		return r.set.OneLine(text)
	}
	return r.set.OneLine(err.Error())
}

// pub is the run's publisher: every report leaves through it (see package
// publish). It is built on each use: a cancelled deploy sets reportBudget
// late.
func (r *Env) pub() *publish.Publisher {
	return &publish.Publisher{Log: r.runner, Secrets: r.set, SetOutput: r.setOutput, ReportBudget: r.reportBudget}
}

// ident answers who we are, once per run: the only author whose hidden
// headers are trusted (see github.Identity).
func (r *Env) ident() *github.Identity {
	if r.identity == nil {
		var api github.LoginAPI
		if r.api != nil {
			api = r.api
		}
		r.identity = github.NewIdentity(api, r.cfg.BotLogin)
	}
	return r.identity
}

// publishesToAPI reports whether this run's reports go to GitHub: not in a
// local run, not from a shard of a matrix (the aggregate job publishes the
// whole), and not without a token.
func (r *Env) publishesToAPI() bool {
	return !r.local && r.cfg.Publish && r.api != nil
}

// targets is where a report goes: the report JSON, the job summary and the
// step outputs always, the whole report on stdout in a local run, and api
// when the run publishes to GitHub. A local run is this list without the
// API targets.
func (r *Env) targets(api ...publish.Target) []publish.Target {
	if r.reportJSON == nil {
		r.reportJSON = &publish.ReportJSON{Workspace: r.gh.Workspace, RunnerTemp: r.gh.RunnerTemp, Label: r.cfg.Label,
			Output: OutputReportJSON, Encode: encodeReport}
	}
	ts := []publish.Target{r.reportJSON}
	if r.local && r.app.Getenv("GITHUB_STEP_SUMMARY") == "" {
		// No job summary to write: stdout gets the whole report below, and
		// rendering a large report twice is most of a local run's time.
		r.summaryWritten = true
	} else {
		ts = append(ts, r.summaryTarget())
	}
	ts = append(ts, publish.Outputs{})
	if r.local {
		return append(ts, r.stdout())
	}
	if !r.publishesToAPI() {
		return ts
	}
	return append(ts, api...)
}

// summaryTarget is the job summary; writing it marks the summary written,
// which every path, failures included, must do.
func (r *Env) summaryTarget() *publish.Summary {
	return &publish.Summary{ReportJSONOutput: OutputReportJSON, Append: func(md string) error {
		r.summaryWritten = true
		return r.runner.AppendSummary(md)
	}}
}

// stdout is the whole report on stdout, or in --output.
func (r *Env) stdout() *publish.Stdout {
	var w io.Writer = r.out // an Env built without an App (unit tests) logs it
	if r.app != nil && r.app.Stdout != nil {
		w = r.app.Stdout
	}
	return &publish.Stdout{Path: r.cfg.CLI.Output, W: w}
}

// checkRun is the check-run target, when check-run is on.
func (r *Env) checkRun() []publish.Target {
	if !r.cfg.CheckRun {
		return nil
	}
	return []publish.Target{&publish.CheckRun{API: r.api, Owner: r.gh.Owner, Repo: r.gh.Repo, DetailsURL: r.gh.RunURL, Output: OutputCheckRunURL}}
}

// commentMode is how a sticky comment is rewritten: edited in place, or
// deleted and posted again (comment: recreate).
func (r *Env) commentMode() github.Mode {
	if r.cfg.Comment == config.CommentRecreate {
		return github.ModeRecreate
	}
	return github.ModeUpdate
}
