package drift

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/driftissue"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// publish writes the report to every channel: the check run, then
// the tracking issue. It returns an error only for an API failure that is
// not a missing permission (that degrades to the job summary with a
// warning).
func (r *run) publish(ctx context.Context, rep reporters.DriftReport) error {
	p := &publish.Publication{
		Kind:     "drift",
		Result:   rep.Result(),
		Render:   func(b reporters.Budget) string { return reporters.DriftMarkdown(rep, b) },
		Outputs:  reporters.DriftOutputs(rep),
		CheckRun: &publish.CheckRunFields{Name: publisher.CheckName("cdkd drift", r.Config.Label), HeadSHA: r.GitHub.SHA},
	}
	p.CheckRun.Conclusion, p.CheckRun.Title = reporters.DriftConclusion(rep, r.GitHub.RunURL)
	api := r.Channels.CheckRun()
	if r.Config.Issue {
		p.Issue = &publish.IssueFields{
			Kind: driftissue.Kind, Label: r.Config.Label, What: "drift tracking issue",
			Content: func(found *github.Issue) github.IssueContent { return r.issueContent(rep, found) },
			Notices: map[string]string{
				github.ActionCreated:  "opened drift tracking issue",
				github.ActionReopened: "drift is back: reopened",
				github.ActionClosed:   "no drift: closed",
			},
		}
		api = append(api, &publish.Issue{API: r.Channels.API, Owner: r.GitHub.Owner, Repo: r.GitHub.Repo, Labels: r.Config.IssueLabels, Identity: r.Channels.Ident(), Output: publisher.OutputIssueURL})
	}
	return r.Channels.Publisher().Publish(ctx, p, r.Channels.Targets(api...)...)
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
func (r *run) issueContent(rep reporters.DriftReport, found *github.Issue) github.IssueContent {
	previous := ""
	if found != nil {
		previous = found.Body
	}
	state, body := driftissue.Decide(rep, previous)
	return github.IssueContent{
		State:   issueStates[state],
		Title:   publisher.CheckName("cdkd drift", r.Config.Label) + ": " + driftissue.Title(rep, state, body),
		Header:  driftissue.Header(r.Config.Label, rep),
		Content: body.String(),
		Footer:  r.issueFooter(),
		Closing: r.closingComment(),
	}
}

// issueFooter links the run that last wrote the issue. It is outside the
// content hash: it changes every run.
func (r *run) issueFooter() string {
	var parts []string
	if u := r.GitHub.RunURL; u != "" {
		parts = append(parts, "[run]("+u+")")
	}
	if sha := r.GitHub.SHA; len(sha) >= 7 {
		parts = append(parts, "commit "+reporters.Code(sha[:7]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n<sub>Last updated by " + strings.Join(parts, " on ") + ".</sub>\n"
}

func (r *run) closingComment() string {
	if r.GitHub.RunURL != "" {
		return fmt.Sprintf("✅ The drift check in [this run](%s) found no drift; closing.", r.GitHub.RunURL)
	}
	return "✅ The latest drift check found no drift; closing."
}
