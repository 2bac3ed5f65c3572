package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
)

// cdkdRunner runs cdkd in the working directory with the live renderer off.
func (r *run) cdkdRunner() *cdkd.Runner {
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
func (r *run) runCdkd(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	return r.runCdkdVia(ctx, runner, args, nil)
}

// runCdkdVia is runCdkd with each stderr line passed through wrap before
// the redacting log stream (nil: straight to it).
func (r *run) runCdkdVia(ctx context.Context, runner *cdkd.Runner, args []string, wrap func(io.Writer) io.Writer) (cdkd.Result, error) {
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
func (r *run) positions() discover.Positions {
	if r.asm == nil {
		return nil
	}
	return r.asm
}

// fullReportHint says where the unabridged report lives when a channel's
// budget forced a shorter one.
func (r *run) fullReportHint() string { return prcomment.FullReportHint(r.gh.RunURL) }

// publishOffline writes what needs no API: the report JSON (output
// report-json; failing to is a warning), the job summary, and in a local run
// the whole report on stdout. It reports whether the API channels are to be
// written too.
func (r *run) publishOffline(kind string, reportJSON any, render func(reporters.Budget) string) bool {
	summary := reporters.SummaryBudget
	summary.Hint = "the report JSON file (the `report-json` output)"
	if path, err := r.writeReportJSON(kind, reportJSON); err != nil {
		r.runner.Warning(fmt.Sprintf("write report JSON: %v", err))
	} else {
		r.setOutput(OutputReportJSON, path)
		summary.Hint = "the report JSON file " + reporters.Code(path) + " (the `report-json` output)"
	}
	if r.local && r.app.Getenv("GITHUB_STEP_SUMMARY") == "" {
		// No job summary to write: stdout gets the whole report below, and
		// rendering a large report twice is most of a local run's time.
		r.summaryWritten = true
	} else {
		r.summary(render(summary))
	}
	if r.local {
		r.printReport(render(reporters.Unlimited))
		return false
	}
	if !r.cfg.Publish {
		// A shard of a matrix: the aggregate job publishes the whole.
		return false
	}
	return r.api != nil
}

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

// writeReportJSON writes the redacted, normalized report and returns its
// path. Inside a workflow it goes to .cdkd-action/ in the workspace and the
// path is relative to the workspace: the action runs in a container, where
// RUNNER_TEMP is a container path later steps on the host cannot open,
// while the workspace is the same directory for both.
func (r *run) writeReportJSON(kind string, v any) (string, error) {
	base, rel := r.gh.Workspace, ".cdkd-action"
	if base == "" {
		base, rel = r.gh.RunnerTemp, "cdkd-action"
		if base == "" {
			base = os.TempDir()
		}
	}
	dir, err := r.reportDir(base, rel)
	if err != nil {
		return "", err
	}
	// Readable by later steps: the action's container runs as root, the
	// job's other steps do not. The content is redacted.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	name := kind
	if r.cfg.Label != "" {
		name += "-" + safeFileName(r.cfg.Label)
	}
	path := filepath.Join(dir, name+".json")
	// Compact: it is read by programs (jq pretty-prints it for a person),
	// and indenting a large report costs more than rendering it.
	if err := writeReportFile(path, v, r.set.RedactBytes); err != nil {
		return "", fmt.Errorf("write %s report %s: %w", kind, path, err)
	}
	if r.gh.Workspace != "" {
		return filepath.Join(rel, name+".json"), nil
	}
	return path, nil
}

func safeFileName(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			return c
		}
		return '_'
	}, s)
}

// login is the identity our comments and issues are written by, the only
// one whose hidden headers we trust: the bot-login input, else GET /user,
// else github-actions[bot] (the GITHUB_TOKEN cannot read /user). It is asked
// once per run. Any other failure is an error, not a guess: trusting the
// wrong author would let another user's header pass for ours, and looking
// for the wrong author would post a duplicate comment.
func (r *run) login(ctx context.Context) (string, error) {
	if r.identity != "" {
		return r.identity, nil
	}
	if r.cfg.BotLogin != "" {
		r.identity = r.cfg.BotLogin
		return r.identity, nil
	}
	login, err := r.api.AuthenticatedLogin(ctx)
	switch {
	case err == nil && login != "":
		r.identity = login
	case err == nil || errors.Is(err, github.ErrNoIdentity):
		r.identity = github.ActionsBotLogin
	default:
		return "", fmt.Errorf("read the token's identity (set bot-login to skip this): %w", err)
	}
	return r.identity, nil
}

// upsertComment writes the sticky comment for the current pull request:
// hidden header first, then a body rendered within what is left of
// GitHub's 65,536-character limit. render gets the header (without the
// content hash) and the budget. It returns the comment now holding the
// report (its ID is 0 when none was written), whose visible report the
// diff's check run records.
func (r *run) upsertComment(ctx context.Context, h prcomment.Header, render func(prcomment.Header, reporters.Budget) prcomment.Comment) (github.StickyResult, error) {
	// The header carries a hash of the content without the run link, so a
	// new run with the same report leaves the comment alone (its link then
	// points at the earlier run that posted the same report).
	c := render(h, reporters.CommentBudget)
	c.ChangeSet, c.Report = r.set.Redact(c.ChangeSet), r.set.Redact(c.Report)
	content := c.ChangeSet + "\n" + c.Report
	if r.gh.RunURL != "" {
		content = strings.ReplaceAll(content, r.gh.RunURL, "")
	}
	sum := sha256.Sum256([]byte(content))
	if c.Header.Extra == nil {
		c.Header.Extra = map[string]string{}
	}
	c.Header.Extra["content"] = hex.EncodeToString(sum[:8])
	// Redacted here too (not only at the API edge) so that "unchanged, skip
	// the write" compares what GitHub holds with what we would write.
	body := prcomment.Redact(r.set, c.String())
	// A slow or re-run job for an older commit must not replace the review
	// of the pull request's current head: reviewers would see a stale diff.
	if pr, err := r.api.GetPullRequest(ctx, r.gh.Owner, r.gh.Repo, r.gh.PR.Number); err == nil && pr.HeadSHA != "" && pr.HeadSHA != r.gh.HeadSHA {
		r.runner.Warning(fmt.Sprintf("pull request #%d has moved on to %s since this run's commit %s: the comment is left to the run for the newer commit",
			r.gh.PR.Number, shortSHA(pr.HeadSHA), shortSHA(r.gh.HeadSHA)))
		return github.StickyResult{}, nil
	}
	author, err := r.login(ctx)
	if err != nil {
		return github.StickyResult{}, fmt.Errorf("write pull request comment: %w", err)
	}
	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: r.gh.PR.Number, Kind: h.Kind, Label: h.Label, Author: author,
		Same: sameHeaderLine}
	res, err := github.Upsert(ctx, r.api, t, body, r.commentMode())
	for _, c := range res.Ignored {
		r.runner.Warning(github.SpoofWarning("comment", c.HTMLURL, c.AuthorLogin, t.Author))
	}
	if err != nil {
		return github.StickyResult{}, fmt.Errorf("write pull request comment: %w", err)
	}
	return res, nil
}

// commentMode is how a sticky comment is rewritten: edited in place, or
// deleted and posted again (comment: recreate).
func (r *run) commentMode() github.Mode {
	if r.cfg.Comment == config.CommentRecreate {
		return github.ModeRecreate
	}
	return github.ModeUpdate
}

// publishCheckRun completes cr (Name, HeadSHA, Conclusion and Title set by
// the caller) with the report rendered for a check run, and creates it when
// check-run is on and there is a commit to attach it to. It sets the output
// check-run-url; a missing permission degrades to a warning, and any other
// API error is returned.
func (r *run) publishCheckRun(ctx context.Context, cr github.CheckRun, render func(reporters.Budget) string) error {
	if !r.cfg.CheckRun || cr.HeadSHA == "" {
		return nil
	}
	cr.Status = "completed"
	cr.DetailsURL = r.gh.RunURL
	cr.Summary = render(reporters.CheckRunBudget)
	ref, err := r.api.CreateCheckRun(ctx, r.gh.Owner, r.gh.Repo, cr)
	if err == nil {
		r.setOutput(OutputCheckRunURL, ref.HTMLURL)
	}
	return r.degrade(err, "cannot create the check run (no checks: write permission?): %v")
}

// notPosted says in the log that a write to GitHub failed: what was not
// posted, GitHub's status, and why, so that no failure path (cdkd failed,
// the gate refused, the run was cancelled) loses it silently. It returns
// err for the caller to pass on.
func (r *run) notPosted(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	status := "no answer"
	if code := github.StatusOf(err); code != 0 {
		status = fmt.Sprintf("HTTP %d", code)
	}
	// Redacted before folding, and again at the sink.
	msg := fmt.Sprintf("%s was not posted (%s): %s", what, status, r.set.OneLine(err.Error()))
	if r.reportBudget > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg += fmt.Sprintf("; the %s given to the report after the cancellation ran out", r.reportBudget)
	}
	r.runner.Warning(r.set.Redact(msg))
	return err
}

// degrade turns a missing permission into a warning (warning formats err
// with its %v): a fork's token cannot write, and the report is still in the
// job summary. Any other error is returned as it is.
func (r *run) degrade(err error, warning string) error {
	if isPermission(err) {
		r.runner.Warning(fmt.Sprintf(warning, err))
		return nil
	}
	return err
}

// redactLines redacts cdkd's lines before they reach a report: together,
// not one by one, so that a secret split across lines (a multi-line value,
// or its base64 wrapped at 64 or 76 columns) is still found.
func (r *run) redactLines(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	return strings.Split(r.set.Redact(strings.Join(lines, "\n")), "\n")
}

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
func (r *run) failureText(err error) string {
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

// sameHeaderLine: two bodies whose hidden headers are equal (same head, digest,
// cdkd and content hash) show the same report; the run link alone does not
// make them differ.
func sameHeaderLine(old, new string) bool {
	o, ok1 := prcomment.ParseHeader(old)
	n, ok2 := prcomment.ParseHeader(new)
	if !ok1 || !ok2 {
		return false
	}
	o.Run, n.Run = "", ""
	return o.String() == n.String()
}
