package app

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
)

// The publisher: where a run's reports go (see package publish), the step
// outputs and the job summary, and the GitHub connection they are written
// through.

// fullReportHint says where the unabridged report lives when a channel's
// budget forced a shorter one.
func (r *Env) fullReportHint() string { return prcomment.FullReportHint(r.gh.RunURL) }

// pub is the run's publisher: every report leaves through it (see package
// publish). It is built on each use: a cancelled deploy sets reportBudget
// late.
func (r *Env) pub() *publish.Publisher {
	return &publish.Publisher{Log: r.runner, Secrets: r.set, SetOutput: r.setOutput, ReportBudget: r.reportBudget, Encode: encodeReport}
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
	return !r.local && r.cfg.Publish && r.cfg.Shard == nil && r.api != nil
}

// targets is where a report goes: the report JSON, the job summary and the
// step outputs always, the whole report on stdout in a local run, and api
// when the run publishes to GitHub. A local run is this list without the
// API targets.
func (r *Env) targets(api ...publish.Target) []publish.Target {
	if r.reportJSON == nil {
		// A run that publishes nothing (a publish: false shard) has the
		// file as its product: failing to write it fails the run.
		r.reportJSON = &publish.ReportJSON{Workspace: r.gh.Workspace, RunnerTemp: r.gh.RunnerTemp, Label: r.cfg.Label,
			Path: r.cfg.CLI.ReportJSON, Output: OutputReportJSON, Required: !r.local && !r.cfg.Publish, Files: r.app.Deps.ReportFiles,
			Lost: func(err error) { r.lostFiles = append(r.lostFiles, err) }}
	}
	var ts []publish.Target
	if r.keepsReportJSON() {
		ts = append(ts, r.reportJSON)
	}
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

// keepsReportJSON: a run in a workspace (or a runner's temporary folder)
// writes the report JSON for later steps; a local run outside both writes
// it only where --report-json asks, or for a shard, whose product it is.
// Otherwise a local run would leave a folder behind in $TMPDIR each time.
func (r *Env) keepsReportJSON() bool {
	return !r.local || r.gh.Workspace != "" || r.gh.RunnerTemp != "" || r.cfg.CLI.ReportJSON != "" || r.cfg.Shard != nil
}

// stdout is the whole report on stdout, or in --output.
func (r *Env) stdout() *publish.Stdout {
	var w io.Writer = r.out // an Env built without an App (unit tests) logs it
	if r.app != nil && r.app.Stdout != nil {
		w = r.app.Stdout
	}
	return &publish.Stdout{Path: r.cfg.CLI.Output, W: w, Lost: func(err error) { r.lostFiles = append(r.lostFiles, err) }}
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

func (r *Env) connectGitHub() {
	if r.cfg.GitHubToken == "" {
		r.runner.Warning("github-token is empty: the report goes to the job summary only")
		return
	}
	build := r.app.Deps.GitHub
	if build == nil {
		build = func(token, apiURL string, log *slog.Logger) (github.API, error) {
			return github.NewClient(token, apiURL, github.WithLogger(log))
		}
	}
	api, err := build(r.cfg.GitHubToken, r.gh.APIURL, r.log)
	if err != nil {
		r.runner.Warning(fmt.Sprintf("cannot use the GitHub API at %s: %v", r.gh.APIURL, err))
		return
	}
	r.api = redactingAPI{api: api, set: r.set}
}

// setOutput records an output; all are written at the end, redacted.
func (r *Env) setOutput(name, value string) { r.outputs[name] = value }

func (r *Env) writeOutputs() {
	if _, ok := r.outputs[OutputFailureReason]; !ok {
		r.outputs[OutputFailureReason] = ""
	}
	for _, name := range slices.Sorted(maps.Keys(r.outputs)) {
		if err := r.runner.SetOutput(name, r.set.Redact(r.outputs[name])); err != nil {
			r.runner.Error(fmt.Sprintf("write output %s: %v", name, err))
		}
	}
}

// summary appends to the job summary, redacted.
func (r *Env) summary(markdown string) {
	pub := r.pub()
	r.summaryTarget().Write(pub, pub.Redact(markdown))
}
