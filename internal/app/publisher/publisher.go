// Package publisher wires a run's reports to where they go (see package
// publish): the report JSON, the job summary, the step outputs, stdout in
// a local run, and the GitHub connection the API targets write through.
package publisher

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/app/redactapi"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Channels is where a run's reports go: the GitHub API (nil in local mode
// or without a token), the step outputs and the job summary, and, in a
// local run, stdout.
type Channels struct {
	// Config is the run's inputs; GitHub its context. Both are the run's
	// own, read as they are when a report goes out.
	Config *config.Config
	GitHub *ghctx.Context
	// Local is set in a local run.
	Local bool
	// Log is the step's log (summary, outputs, warnings); its text passes
	// the redactor.
	Log *workflow.Runner
	// Secrets redacts every report.
	Secrets *secrets.Set
	// Stdout is where a local run's report goes (nil: Fallback, the log).
	Stdout   io.Writer
	Fallback io.Writer
	Getenv   func(string) string
	// ReportFiles is where the report JSON is written; nil is the OS's.
	ReportFiles publish.Files
	// API is the GitHub API, redacting (nil: none).
	API github.API
	// ReportBudget is the time a cancelled run's last report was given,
	// 0 while the job's own context is live.
	ReportBudget time.Duration

	// outputs are the step outputs, written at the end, redacted.
	outputs map[string]string
	// summaryWritten tracks that every path, failures included, wrote one.
	summaryWritten bool
	// identity answers who we are, once per run (see Ident).
	identity *github.Identity
	// reportJSON writes the report JSON; outside a workspace it keeps the
	// run's own folder.
	reportJSON *publish.ReportJSON
	// lostFiles are the files a local user asked for (--output,
	// --outputs-file, --report-json) that could not be written.
	lostFiles []error
}

// FullReportHint says where the unabridged report lives when a channel's
// budget forced a shorter one.
func (c *Channels) FullReportHint() string { return prcomment.FullReportHint(c.GitHub.RunURL) }

// Publisher is the run's publisher: every report leaves through it (see package
// publish). It is built on each use: a cancelled deploy sets reportBudget
// late.
func (c *Channels) Publisher() *publish.Publisher {
	return &publish.Publisher{Log: c.Log, Secrets: c.Secrets, SetOutput: c.SetOutput, ReportBudget: c.ReportBudget, Encode: encodeReport}
}

// Ident answers who we are, once per run: the only author whose hidden
// headers are trusted (see github.Identity).
func (c *Channels) Ident() *github.Identity {
	if c.identity == nil {
		var api github.LoginAPI
		if c.API != nil {
			api = c.API
		}
		c.identity = github.NewIdentity(api, c.Config.BotLogin)
	}
	return c.identity
}

// PublishesToAPI reports whether this run's reports go to GitHub: not in a
// local run, not from a shard of a matrix (the aggregate job publishes the
// whole), and not without a token.
func (c *Channels) PublishesToAPI() bool {
	return !c.Local && c.Config.Publish && c.Config.Shard == nil && c.API != nil
}

// Targets is where a report goes: the report JSON, the job summary and the
// step outputs always, the whole report on stdout in a local run, and api
// when the run publishes to GitHub. A local run is this list without the
// API targets.
func (c *Channels) Targets(api ...publish.Target) []publish.Target {
	if c.reportJSON == nil {
		// A run that publishes nothing (a publish: false shard) has the
		// file as its product: failing to write it fails the run.
		c.reportJSON = &publish.ReportJSON{Workspace: c.GitHub.Workspace, RunnerTemp: c.GitHub.RunnerTemp, Label: c.Config.Label,
			Path: c.Config.CLI.ReportJSON, Output: OutputReportJSON, Required: !c.Local && !c.Config.Publish, Files: c.ReportFiles,
			Lost: c.Lost}
	}
	var ts []publish.Target
	if c.keepsReportJSON() {
		ts = append(ts, c.reportJSON)
	}
	if c.Local && c.Getenv("GITHUB_STEP_SUMMARY") == "" {
		// No job summary to write: stdout gets the whole report below, and
		// rendering a large report twice is most of a local run's time.
		c.summaryWritten = true
	} else {
		ts = append(ts, c.summaryTarget())
	}
	ts = append(ts, publish.Outputs{})
	if c.Local {
		return append(ts, c.stdout())
	}
	if !c.PublishesToAPI() {
		return ts
	}
	return append(ts, api...)
}

// summaryTarget is the job summary; writing it marks the summary written,
// which every path, failures included, must do.
func (c *Channels) summaryTarget() *publish.Summary {
	return &publish.Summary{ReportJSONOutput: OutputReportJSON, Append: func(md string) error {
		c.summaryWritten = true
		return c.Log.AppendSummary(md)
	}}
}

// SummaryNote appends the publication's SummaryNote to the job summary
// after the targets before it, and writes its ResultAfter over the report
// JSON (publish.SummaryNote); nothing when no summary is written. Call it
// after Targets, which makes the report JSON target.
func (c *Channels) SummaryNote() []publish.Target {
	if c.Local && c.Getenv("GITHUB_STEP_SUMMARY") == "" {
		return nil
	}
	return []publish.Target{&publish.SummaryNote{Summary: c.summaryTarget(), Report: c.reportJSON}}
}

// keepsReportJSON: a run in a workspace (or a runner's temporary folder)
// writes the report JSON for later steps; a local run outside both writes
// it only where --report-json asks, or for a shard, whose product it is.
// Otherwise a local run would leave a folder behind in $TMPDIR each time.
func (c *Channels) keepsReportJSON() bool {
	return !c.Local || c.GitHub.Workspace != "" || c.GitHub.RunnerTemp != "" || c.Config.CLI.ReportJSON != "" || c.Config.Shard != nil
}

// stdout is the whole report on stdout, or in --output.
func (c *Channels) stdout() *publish.Stdout {
	w := c.Stdout
	if w == nil {
		w = c.Fallback // channels built without an App (unit tests) log it
	}
	return &publish.Stdout{Path: c.Config.CLI.Output, W: w, Lost: c.Lost}
}

// CheckRun is the check-run target, when check-run is on.
func (c *Channels) CheckRun() []publish.Target {
	if !c.Config.CheckRun {
		return nil
	}
	return []publish.Target{&publish.CheckRun{API: c.API, Owner: c.GitHub.Owner, Repo: c.GitHub.Repo, DetailsURL: c.GitHub.RunURL, Output: OutputCheckRunURL}}
}

// CommentMode is how a sticky comment is rewritten: edited in place, or
// deleted and posted again (comment: recreate).
func (c *Channels) CommentMode() github.Mode {
	if c.Config.Comment == config.CommentRecreate {
		return github.ModeRecreate
	}
	return github.ModeUpdate
}

// Connect connects the run to the GitHub API through build (nil:
// github.NewClient), redacting every string it sends; a failure is a
// warning, and the reports go to the job summary only.
func (c *Channels) Connect(build func(token, apiURL string, opts ...github.Option) (github.API, error), log *slog.Logger) {
	if c.Config.GitHubToken == "" {
		msg := "github-token is empty: the report goes to the job summary only"
		if c.Config.Command == config.CommandDiff && c.GitHub.PR != nil {
			// As UnreviewableDiff says of comment: off with check-run: false.
			msg += "; this diff leaves no reviewed change set (no comment, no check run), so a later deploy with require-reviewed-diff: true will refuse this change (no-reviewed-diff)"
		}
		c.Log.Warning(msg)
		return
	}
	if build == nil {
		build = func(token, apiURL string, opts ...github.Option) (github.API, error) {
			return github.NewClient(token, apiURL, opts...)
		}
	}
	// A rate limit is waited out as GitHub asks, within timeout-minutes.
	api, err := build(c.Config.GitHubToken, c.GitHub.APIURL, github.WithLogger(log), github.WithRateLimitWait(c.Config.Timeout))
	if err != nil {
		c.Log.Warning(fmt.Sprintf("cannot use the GitHub API at %s: %v", c.GitHub.APIURL, err))
		return
	}
	c.API = redactapi.API{Next: api, Secrets: c.Secrets}
}

// SetOutput records an output; all are written at the end, redacted.
func (c *Channels) SetOutput(name, value string) {
	if c.outputs == nil {
		c.outputs = map[string]string{}
	}
	c.outputs[name] = value
}

// SummaryWritten reports whether a report or a failure reached the job
// summary: every path must write one.
func (c *Channels) SummaryWritten() bool { return c.summaryWritten }

// Lost records a file the user asked for that could not be written: the
// run fails with bad input, since the path was theirs.
func (c *Channels) Lost(err error) { c.lostFiles = append(c.lostFiles, err) }

// LostFiles are the files Lost recorded.
func (c *Channels) LostFiles() []error { return c.lostFiles }

// PublishView publishes a re-rendered report to the targets that need no
// API: a view is not a review.
func (c *Channels) PublishView(p *publish.Publication) {
	// Only API targets return errors, and there are none.
	ts := c.Targets()
	if p.SummaryNote != nil {
		ts = append(ts, c.SummaryNote()...)
	}
	_ = c.Publisher().Publish(context.Background(), p, ts...)
}

// Output is an output set so far ("" when none).
func (c *Channels) Output(name string) string { return c.outputs[name] }

// Outputs are the outputs set so far.
func (c *Channels) Outputs() map[string]string { return c.outputs }

// WriteOutputs writes every output, redacted; failure-reason is always
// set.
func (c *Channels) WriteOutputs() {
	if _, ok := c.outputs[OutputFailureReason]; !ok {
		c.outputs[OutputFailureReason] = ""
	}
	for _, name := range slices.Sorted(maps.Keys(c.outputs)) {
		if err := c.Log.SetOutput(name, c.Secrets.Redact(c.outputs[name])); err != nil {
			c.Log.Error(fmt.Sprintf("write output %s: %v", name, err))
		}
	}
}

// Summary appends to the job summary, redacted.
func (c *Channels) Summary(markdown string) {
	pub := c.Publisher()
	c.summaryTarget().Write(pub, pub.Redact(markdown))
}

// CheckName is the name of a check run: base, and the label when there is
// one.
func CheckName(base, label string) string {
	if label == "" {
		return base
	}
	return base + " (" + label + ")"
}

// ShardRef is the shard a run's report names, nil outside a matrix.
func ShardRef(s *config.Shard) *model.ShardRef {
	if s == nil {
		return nil
	}
	return &model.ShardRef{ID: s.ID, Plan: s.Plan}
}

// QueueCheck is the check a ruleset requires for a merge queue: verify
// writes it on the group's head, the pull request's diff on its head (no
// pull request could enter the queue otherwise). Its name never matches
// the diff's, whose check run is the review's record.
const QueueCheck = "cdkd merge queue"
