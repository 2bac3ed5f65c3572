package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/driftissue"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// publishDrift writes the report to every channel: the check run, then
// the tracking issue. It returns an error only for an API failure that is
// not a missing permission (that degrades to the job summary with a
// warning).
func (r *driftRun) publishDrift(ctx context.Context, rep reporters.DriftReport) error {
	p := &publish.Publication{
		Kind:     "drift",
		Result:   rep.Result(),
		Render:   func(b reporters.Budget) string { return reporters.DriftMarkdown(rep, b) },
		Outputs:  reporters.DriftOutputs(rep),
		CheckRun: &publish.CheckRunFields{Name: checkName("cdkd drift", r.cfg.Label), HeadSHA: r.gh.SHA},
	}
	p.CheckRun.Conclusion, p.CheckRun.Title = reporters.DriftConclusion(rep, r.gh.RunURL)
	api := r.checkRun()
	if r.cfg.Issue {
		p.Issue = &publish.IssueFields{
			Kind: driftissue.Kind, Label: r.cfg.Label, What: "drift tracking issue",
			Content: func(found *github.Issue) github.IssueContent { return r.issueContent(rep, found) },
			Notices: map[string]string{
				github.ActionCreated:  "opened drift tracking issue",
				github.ActionReopened: "drift is back: reopened",
				github.ActionClosed:   "no drift: closed",
			},
		}
		api = append(api, &publish.Issue{API: r.api, Owner: r.gh.Owner, Repo: r.gh.Repo, Labels: r.cfg.IssueLabels, Identity: r.ident(), Output: OutputIssueURL})
	}
	return r.pub().Publish(ctx, p, r.targets(api...)...)
}

// issueStates carries driftissue's decision over to the sticky issue.
var issueStates = map[driftissue.State]github.IssueState{
	driftissue.Keep:  github.IssueKeep,
	driftissue.Open:  github.IssueOpen,
	driftissue.Close: github.IssueClose,
}

// issueContent is what the one tracking issue of this label is to be
// (driftissue decides its state, header and body), with a short closing
// comment when a check finds no drift.
func (r *driftRun) issueContent(rep reporters.DriftReport, found *github.Issue) github.IssueContent {
	previous := ""
	if found != nil {
		previous = found.Body
	}
	state, body := driftissue.Decide(rep, previous)
	return github.IssueContent{
		State:   issueStates[state],
		Title:   checkName("cdkd drift", r.cfg.Label) + ": " + reporters.DriftTitle(rep),
		Header:  driftissue.Header(r.cfg.Label, rep),
		Content: body.String(),
		Footer:  r.issueFooter(),
		Closing: r.closingComment(),
	}
}

// issueFooter links the run that last wrote the issue. It is outside the
// content hash: it changes every run.
func (r *driftRun) issueFooter() string {
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

func (r *driftRun) closingComment() string {
	if r.gh.RunURL != "" {
		return fmt.Sprintf("✅ The drift check in [this run](%s) found no drift; closing.", r.gh.RunURL)
	}
	return "✅ The latest drift check found no drift; closing."
}
