package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// driftHeaderKind marks the tracking issue in its hidden header.
const driftHeaderKind = "drift"

// issueBudget: an issue body takes 65,536 characters, like a comment; the
// header and the footer line are added after rendering.
var issueBudget = reporters.Budget{MaxChars: 65536 - 2048, Channel: "the tracking issue"}

// publishDrift writes the report to every channel. It returns an error only
// for an API failure that is not a missing permission (that degrades to the
// job summary with a warning).
func (r *driftRun) publishDrift(ctx context.Context, rep reporters.DriftReport) error {
	render := func(b reporters.Budget) string { return reporters.DriftMarkdown(rep, b) }
	if !r.publishOffline("drift", rep.Result(), render) {
		return nil
	}
	var errs []error
	cr := github.CheckRun{Name: checkName("cdkd drift", r.cfg.Label), HeadSHA: r.gh.SHA}
	cr.Conclusion, cr.Title = driftConclusion(rep, r.gh.RunURL)
	if err := r.publishCheckRun(ctx, cr, render); err != nil {
		errs = append(errs, r.notPosted(ctx, "the "+cr.Name+" check run", err))
	}
	if r.cfg.Issue {
		url, err := r.syncDriftIssue(ctx, rep)
		if err := r.degrade(err, "cannot write the tracking issue (no issues: write permission?): %v"); err != nil {
			errs = append(errs, r.notPosted(ctx, "the drift tracking issue", err))
		}
		r.setOutput(OutputIssueURL, url)
	}
	return errors.Join(errs...)
}

// driftConclusion maps where things stand to a check-run conclusion:
// success for clean (neutral when nothing at all was compared), failure
// for drift and for an error, action_required for "could not check"
// (GitHub requires a details URL with it).
func driftConclusion(rep reporters.DriftReport, runURL string) (conclusion, title string) {
	title = reporters.DriftTitle(rep)
	if res := rep.Resolution; res != nil && resolutionFailed(res) {
		return "failure", title
	}
	switch rep.FinalStatus() {
	case model.DriftClean:
		if reporters.NothingCompared(rep.Verdict) {
			return "neutral", title // no drift, but no ✓ either: nothing was compared
		}
		return "success", title
	case model.DriftDrifted:
		return "failure", title
	case model.DriftIncomplete:
		if runURL == "" {
			return "neutral", title
		}
		return "action_required", title
	}
	return "failure", title
}

// syncDriftIssue keeps the one tracking issue of this label current: opened
// (or reopened) on drift, edited while it lasts, closed with a short
// comment when a check finds none, and told plainly when a check could not
// complete, without claiming drift. Nothing is written when nothing
// changed since the last run's body. It returns the issue's URL, if any.
func (r *driftRun) syncDriftIssue(ctx context.Context, rep reporters.DriftReport) (string, error) {
	login, err := r.login(ctx)
	if err != nil {
		return "", fmt.Errorf("find the drift tracking issue: %w", err)
	}
	issues, err := r.api.ListIssues(ctx, r.gh.Owner, r.gh.Repo, github.ListIssuesOptions{State: "all", Creator: login})
	if err != nil {
		return "", fmt.Errorf("find the drift tracking issue: %w", err)
	}
	ours, others := github.Split(issues, driftHeaderKind, r.cfg.Label, login, func(is github.Issue) (string, string) { return is.Body, is.AuthorLogin })
	for _, is := range others {
		r.runner.Warning(github.SpoofWarning("issue", is.HTMLURL, is.AuthorLogin, login))
	}
	var found *github.Issue
	if len(ours) > 0 {
		found = &ours[0] // GitHub lists the newest first: that one is ours
	}

	status := rep.FinalStatus()
	// Redacted before hashing, so the digest compares what GitHub holds. A
	// failed check keeps the drift the issue recorded (see issueRecord).
	stable := r.set.Redact(issueBody(rep, found))
	sum := sha256.Sum256([]byte(string(status) + "\n" + stable))
	header := github.Header{
		V:      github.HeaderVersion,
		Kind:   driftHeaderKind,
		Label:  r.cfg.Label,
		Digest: "v1:" + hex.EncodeToString(sum[:]),
		Cdkd:   rep.CdkdVersion,
		Extra:  map[string]string{"status": string(status)},
	}
	title := checkName("cdkd drift", r.cfg.Label) + ": " + reporters.DriftTitle(rep)
	body := header.String() + "\n" + stable + r.issueFooter()

	if found == nil {
		if status != model.DriftDrifted {
			return "", nil // no drift and no issue: nothing to track
		}
		is, err := r.api.CreateIssue(ctx, r.gh.Owner, r.gh.Repo, title, body, r.cfg.IssueLabels)
		if err != nil {
			return "", fmt.Errorf("open the drift tracking issue: %w", err)
		}
		r.runner.Notice("opened drift tracking issue " + is.HTMLURL)
		return is.HTMLURL, nil
	}

	prev, _ := github.ParseHeader(found.Body)
	open := found.State == "open"
	labels := missingLabels(found.Labels, r.cfg.IssueLabels)
	switch {
	case !open && status != model.DriftDrifted:
		return found.HTMLURL, nil // closed, and nothing new drifted
	case open && prev.Digest == header.Digest && labels == nil:
		return found.HTMLURL, nil // nothing changed since the last run
	}
	edit := github.IssueEdit{Title: &title, Body: &body, Labels: labels}
	switch {
	case !open:
		state := "open"
		edit.State = &state
	case status == model.DriftClean && !comparedNothing(rep):
		state := "closed"
		edit.State = &state
	}
	if _, err := r.api.EditIssue(ctx, r.gh.Owner, r.gh.Repo, found.Number, edit); err != nil {
		return found.HTMLURL, fmt.Errorf("update the drift tracking issue #%d: %w", found.Number, err)
	}
	switch {
	case !open:
		r.runner.Notice("drift is back: reopened " + found.HTMLURL)
	case status == model.DriftClean && !comparedNothing(rep):
		if _, err := r.api.CreateIssueComment(ctx, r.gh.Owner, r.gh.Repo, found.Number, r.closingComment()); err != nil {
			return found.HTMLURL, fmt.Errorf("comment on the drift tracking issue #%d: %w", found.Number, err)
		}
		r.runner.Notice("no drift: closed " + found.HTMLURL)
	}
	return found.HTMLURL, nil
}

// issueFooter links the run that last wrote the issue. It is outside the
// digest: it changes every run.
func (r *Env) issueFooter() string {
	var parts []string
	if u := r.gh.RunURL; u != "" {
		parts = append(parts, "[run]("+u+")")
	}
	if sha := r.gh.SHA; len(sha) >= 7 {
		parts = append(parts, "commit "+reporters.Code(sha[:7]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n<sub>Last updated by " + strings.Join(parts, " on ") + ".</sub>\n"
}

func (r *Env) closingComment() string {
	if r.gh.RunURL != "" {
		return fmt.Sprintf("✅ The drift check in [this run](%s) found no drift; closing.", r.gh.RunURL)
	}
	return "✅ The latest drift check found no drift; closing."
}
