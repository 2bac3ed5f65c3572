package publish

import (
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/redacted"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// CheckRunAPI is what the check-run target calls.
type CheckRunAPI interface {
	CreateCheckRun(ctx context.Context, owner, repo string, cr github.CheckRun) (github.CheckRunRef, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, cr github.CheckRun) (github.CheckRunRef, error)
}

// CheckRun creates a completed check run on the publication's commit,
// with the report rendered for a check run as its summary.
type CheckRun struct {
	API         CheckRunAPI
	Owner, Repo string
	DetailsURL  string // the run's URL
	Output      string // the output naming the check run's URL
}

func (t *CheckRun) Policy(v *View) Policy {
	name := "check"
	if v.CheckRun != nil {
		name = v.CheckRun.Name.String()
	}
	return Policy{What: "the " + name + " check run", Denied: "cannot create the check run (no checks: write permission?): %v", Errors: gitHub}
}

func (t *CheckRun) Publish(ctx context.Context, pub *Publisher, v *View, w *Written) error {
	f := v.CheckRun
	if f == nil || f.HeadSHA == "" || v.Render == nil {
		return nil
	}
	cr := github.CheckRun{
		Name:       f.Name.String(),
		HeadSHA:    f.HeadSHA,
		Status:     "completed",
		Conclusion: f.Conclusion,
		DetailsURL: t.DetailsURL,
		Title:      f.Title.String(),
	}
	if f.Summary != nil {
		cr.Summary = f.Summary(reporters.CheckRunBudget, w).String()
	} else {
		cr.Summary = v.Render(reporters.CheckRunBudget).String()
	}
	vouches := f.ExternalID != nil && w.Reread != nil
	if vouches {
		// Written from the comment's final content, re-read after the
		// comments converged: a racing run may have written its report
		// into it since, and then that run's check run is the record.
		if c, lost := reread(ctx, pub, w); lost {
			pub.Log.Info(fmt.Sprintf("the pull request comment %s now holds another run's report for this commit; that run records it in the %s check run, this one writes none",
				c.HTMLURL, cr.Name))
			pub.output(t.Output, "")
			return nil
		}
	}
	if f.ExternalID != nil {
		// Our review record holds a digest and ids, no secret: redacting a
		// hex-like short secret inside it would make the deploy refuse its
		// own review.
		cr.ExternalID = f.ExternalID(w)
	}
	ref, err := t.API.CreateCheckRun(ctx, t.Owner, t.Repo, cr)
	if err != nil {
		return err
	}
	w.Recorded = true
	pub.output(t.Output, ref.HTMLURL)
	if vouches {
		return t.superseded(ctx, pub, f, w, ref)
	}
	return nil
}

// reread reads the sticky comment again into w.Comment and reports
// whether it holds another run's report than this one's. When it cannot be
// read, w.Comment stays what the write left.
func reread(ctx context.Context, pub *Publisher, w *Written) (github.Comment, bool) {
	c, err := w.Reread(ctx)
	if err != nil {
		pub.warn(fmt.Sprintf("could not read the pull request comment again before recording it in the check run: %v", err))
		return w.Comment, false
	}
	if c.ID == 0 {
		return w.Comment, false
	}
	w.Comment = c
	return c, !github.Unchanged(c.Body, w.Wrote)
}

// superseded reads the comment once more after the check run was created:
// a racing run that wrote the comment after this run's first re-read may
// have created its check run before this one, which would leave the newest
// check run vouching for a report the comment no longer holds. The check
// run is then rewritten to name what the comment holds, the survivor's
// report, and says so.
func (t *CheckRun) superseded(ctx context.Context, pub *Publisher, f *CheckRunView, w *Written, ref github.CheckRunRef) error {
	c, lost := reread(ctx, pub, w)
	if !lost {
		return nil
	}
	note := fmt.Sprintf("Another cdkd diff run for this commit wrote its report into [the pull request comment](%s) after this run did: "+
		"that report is the review this check run records, not this run's.", c.HTMLURL)
	_, err := t.API.UpdateCheckRun(ctx, t.Owner, t.Repo, ref.ID, github.CheckRun{
		ExternalID: f.ExternalID(w),
		Conclusion: "neutral",
		Title:      "Superseded by another run's report",
		Summary:    note,
	})
	if err != nil {
		return fmt.Errorf("record the surviving report in check run %d: %w", ref.ID, err)
	}
	pub.Log.Info(fmt.Sprintf("the pull request comment %s now holds another run's report; the %s check run records that one", c.HTMLURL, f.Name))
	return nil
}

// Issue keeps the one tracking issue of the publication's kind and label
// current (see github.SyncIssue); the publication decides its state.
type Issue struct {
	API         github.IssuesAPI
	Owner, Repo string
	Labels      []string // issue-labels
	Identity    *github.Identity
	Output      string // the output naming the issue's URL
}

func (t *Issue) Policy(v *View) Policy {
	what := "tracking issue"
	if v.Issue != nil && v.Issue.What != "" {
		what = v.Issue.What
	}
	return Policy{What: "the " + what, Denied: "cannot write the tracking issue (no issues: write permission?): %v", Errors: gitHub}
}

func (t *Issue) Publish(ctx context.Context, pub *Publisher, v *View, _ *Written) error {
	f := v.Issue
	if f == nil {
		return nil
	}
	author, err := t.Identity.Login(ctx)
	if err != nil {
		return fmt.Errorf("find the %s: %w", f.What, err)
	}
	target := github.IssueTarget{Owner: t.Owner, Repo: t.Repo, Kind: f.Kind, Label: f.Label, Author: author, Labels: t.Labels, What: f.What}
	res, err := github.SyncIssue(ctx, t.API, target, func(found *github.Issue) github.IssueContent {
		return f.Content(found).content()
	})
	for _, s := range github.Spoofs(res.Ignored, author) {
		pub.warn(s)
	}
	pub.output(t.Output, res.URL)
	if err != nil {
		return err
	}
	if n, ok := f.Notice(res.Action, res.URL); ok {
		pub.Log.Notice(n.String())
	}
	return nil
}

// DeploymentAPI is what the deployment target calls.
type DeploymentAPI interface {
	CreateDeployment(ctx context.Context, owner, repo string, d github.DeploymentRequest) (int64, error)
	CreateDeploymentStatus(ctx context.Context, owner, repo string, id int64, state, environmentURL, logURL, description string) error
}

// Deployment records a GitHub deployment of the commit to an environment:
// Start before cdkd deploys (in_progress), Publish with the outcome.
// Failing to is a warning: the deploy matters more than its record.
type Deployment struct {
	API         DeploymentAPI
	Owner, Repo string
	Environment string
	SHA         string
	RunURL      string

	id int64 // the deployment Start created
}

func (t *Deployment) Policy(v *View) Policy {
	state := "final"
	if v.Deployment != nil {
		state = v.Deployment.State
	}
	return Policy{What: "the deployment's " + state + " status", Optional: true, Errors: gitHub}
}

// Start creates the deployment and its in_progress status.
func (t *Deployment) Start(ctx context.Context, pub *Publisher, description redacted.Text) {
	if t.Environment == "" {
		return
	}
	id, err := t.API.CreateDeployment(ctx, t.Owner, t.Repo, github.DeploymentRequest{Ref: t.SHA, Environment: t.Environment, Description: description.String()})
	if err != nil {
		_ = pub.Failed(ctx, Policy{What: "the deployment to " + t.Environment + " (no deployments: write permission?)", Optional: true, Errors: gitHub}, err)
		return
	}
	t.id = id
	err = t.API.CreateDeploymentStatus(ctx, t.Owner, t.Repo, id, "in_progress", "", t.RunURL, "cdkd deploy is running")
	_ = pub.Failed(ctx, Policy{What: "the deployment's in_progress status", Optional: true, Errors: gitHub}, err)
}

func (t *Deployment) Publish(ctx context.Context, pub *Publisher, v *View, _ *Written) error {
	f := v.Deployment
	if t.id == 0 || f == nil {
		return nil
	}
	return t.API.CreateDeploymentStatus(ctx, t.Owner, t.Repo, t.id, f.State, f.EnvironmentURL.String(), t.RunURL, f.Description.String())
}

// RequiredCheck creates a check run of a fixed name beside the report's
// own, for a ruleset to require: the merge queue's check, which must be
// reported on every pull request's head too or none can enter the queue.
// Its words are its own, decided from what the targets before it wrote.
type RequiredCheck struct {
	API         CheckRunAPI
	Owner, Repo string
	DetailsURL  string
	Name        string
	HeadSHA     string
	// Conclude gives the conclusion, title and summary (Markdown), the
	// texts as red redacts them.
	Conclude func(w *Written, red redacted.Redactor) (conclusion string, title, summary redacted.Text)
}

func (t *RequiredCheck) Policy(*View) Policy {
	return Policy{What: "the " + t.Name + " check run", Denied: "cannot create the check run (no checks: write permission?): %v", Errors: gitHub}
}

func (t *RequiredCheck) Publish(ctx context.Context, pub *Publisher, _ *View, w *Written) error {
	if t.HeadSHA == "" || t.Conclude == nil {
		return nil
	}
	conclusion, title, summary := t.Conclude(w, pub.Secrets)
	_, err := t.API.CreateCheckRun(ctx, t.Owner, t.Repo, github.CheckRun{
		Name: pub.Redact(t.Name).String(), HeadSHA: t.HeadSHA, Status: "completed", Conclusion: conclusion, DetailsURL: t.DetailsURL,
		Title: title.String(), Summary: summary.String(),
	})
	return err
}

// gitHubErrors reads the GitHub API's errors: a 403 is a missing
// permission, and the status is the HTTP one.
type gitHubErrors struct{}

var gitHub ErrorReader = gitHubErrors{}

func (gitHubErrors) Denied(err error) bool { return github.IsForbidden(err) }

func (gitHubErrors) Status(err error) string {
	if code := github.StatusOf(err); code != 0 {
		return fmt.Sprintf("HTTP %d", code)
	}
	return ""
}
