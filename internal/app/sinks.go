package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/reporters"
)

// cdkdRunner runs cdkd in the working directory with the live renderer off.
func (r *run) cdkdRunner() *cdkd.Runner {
	return &cdkd.Runner{Path: r.cfg.CdkdPath, Dir: r.cfg.WorkingDirectory}
}

// runCdkd streams cdkd's stderr to the log, redacted line by line and inside
// stop-commands, so a template or state value cannot issue workflow commands.
func (r *run) runCdkd(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	stream := secrets.NewLineWriter(r.out, r.set)
	runner.Stderr = stream
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
func (r *run) fullReportHint() string {
	if r.gh.RunURL != "" {
		return fmt.Sprintf("the job summary of [this run](%s) and the report JSON file", r.gh.RunURL)
	}
	return "the job summary and the report JSON file"
}

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
		r.setOutput("report-json", path)
		summary.Hint = "the report JSON file " + reporters.Code(path) + " (the `report-json` output)"
	}
	r.summary(render(summary))
	if r.local {
		fmt.Fprintln(r.out, render(reporters.Unlimited))
		return false
	}
	if !r.cfg.Publish {
		// A shard of a matrix: the aggregate job publishes the whole.
		return false
	}
	return r.api != nil
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
	dir := filepath.Join(base, rel)
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
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s report: %w", kind, err)
	}
	b = append(r.set.RedactBytes(b), '\n')
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
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
// GitHub's 65,536-character limit.
func (r *run) upsertComment(ctx context.Context, h github.Header, render func(reporters.Budget) string) (string, error) {
	// The header carries a hash of the content without the run link, so a
	// new run with the same report leaves the comment alone (its link then
	// points at the earlier run that posted the same report).
	rendered := r.set.Redact(render(reporters.CommentBudget))
	content := rendered
	if r.gh.RunURL != "" {
		content = strings.ReplaceAll(content, r.gh.RunURL, "")
	}
	sum := sha256.Sum256([]byte(content))
	if h.Extra == nil {
		h.Extra = map[string]string{}
	}
	h.Extra["content"] = hex.EncodeToString(sum[:8])
	head := h.String() + "\n"
	// Redacted here too (not only at the API edge) so that "unchanged, skip
	// the write" compares what GitHub holds with what we would write.
	body := redactBody(r.set, head+rendered)
	// A slow or re-run job for an older commit must not replace the review
	// of the pull request's current head: reviewers would see a stale diff.
	if pr, err := r.api.GetPullRequest(ctx, r.gh.Owner, r.gh.Repo, r.gh.PR.Number); err == nil && pr.HeadSHA != "" && pr.HeadSHA != r.gh.HeadSHA {
		r.runner.Warning(fmt.Sprintf("pull request #%d has moved on to %s since this run's commit %s: the comment is left to the run for the newer commit",
			r.gh.PR.Number, shortSHA(pr.HeadSHA), shortSHA(r.gh.HeadSHA)))
		return "", nil
	}
	author, err := r.login(ctx)
	if err != nil {
		return "", fmt.Errorf("write pull request comment: %w", err)
	}
	t := github.StickyTarget{Owner: r.gh.Owner, Repo: r.gh.Repo, Number: r.gh.PR.Number, Kind: h.Kind, Label: h.Label, Author: author,
		Same: sameHeaderLine}
	res, err := github.Upsert(ctx, r.api, t, body, r.commentMode())
	for _, c := range res.Ignored {
		r.runner.Warning(fmt.Sprintf("ignored comment %s by %s: it carries cdkd-action's header but was not written by %s (possible spoof)", c.HTMLURL, c.AuthorLogin, t.Author))
	}
	if err != nil {
		return "", fmt.Errorf("write pull request comment: %w", err)
	}
	return res.URL, nil
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
		r.setOutput("check-run-url", ref.HTMLURL)
	}
	return r.degrade(err, "cannot create the check run (no checks: write permission?): %v")
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

// redactLines redacts each of cdkd's lines before they reach a report.
func (r *run) redactLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = r.set.Redact(l)
	}
	return out
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
		return r.set.Redact(oneLine(fmt.Sprintf("%s (cdkd exited %d)", cerr.Reason, cerr.ExitCode)))
	}
	return r.set.Redact(oneLine(err.Error()))
}

// sameHeaderLine: two bodies whose hidden headers are equal (same head, digest,
// cdkd and content hash) show the same report.
func sameHeaderLine(old, new string) bool {
	o, _, _ := strings.Cut(old, "\n")
	n, _, _ := strings.Cut(new, "\n")
	return o == n
}
