package publish

import (
	"context"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/github"
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

func (t *CheckRun) Policy(p *Publication) Policy {
	name := "check"
	if p.CheckRun != nil {
		name = p.CheckRun.Name
	}
	return Policy{What: "the " + name + " check run", Denied: "cannot create the check run (no checks: write permission?): %v"}
}

func (t *CheckRun) Publish(ctx context.Context, pub *Publisher, p *Publication, w *Written) error {
	f := p.CheckRun
	if f == nil || f.HeadSHA == "" || p.Render == nil {
		return nil
	}
	cr := github.CheckRun{
		Name:       pub.Secrets.Redact(f.Name),
		HeadSHA:    f.HeadSHA,
		Status:     "completed",
		Conclusion: f.Conclusion,
		DetailsURL: t.DetailsURL,
		Title:      pub.Secrets.Redact(f.Title),
		Summary:    pub.Secrets.Redact(p.Render(reporters.CheckRunBudget)),
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
		// Our review marker holds a digest and ids, no secret: redacting a
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
func (t *CheckRun) superseded(ctx context.Context, pub *Publisher, f *CheckRunFields, w *Written, ref github.CheckRunRef) error {
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

func (t *Issue) Policy(p *Publication) Policy {
	what := "tracking issue"
	if p.Issue != nil && p.Issue.What != "" {
		what = p.Issue.What
	}
	return Policy{What: "the " + what, Denied: "cannot write the tracking issue (no issues: write permission?): %v"}
}

func (t *Issue) Publish(ctx context.Context, pub *Publisher, p *Publication, _ *Written) error {
	f := p.Issue
	if f == nil {
		return nil
	}
	author, err := t.Identity.Login(ctx)
	if err != nil {
		return fmt.Errorf("find the %s: %w", f.What, err)
	}
	target := github.IssueTarget{Owner: t.Owner, Repo: t.Repo, Kind: f.Kind, Label: f.Label, Author: author, Labels: t.Labels, What: f.What}
	res, err := github.SyncIssue(ctx, t.API, target, func(found *github.Issue) github.IssueContent {
		c := f.Content(found)
		// Redacted before hashing, so the hash compares what GitHub holds.
		s := pub.Secrets
		c.Title, c.Content, c.Footer, c.Closing = s.Redact(c.Title), s.Redact(c.Content), s.Redact(c.Footer), s.Redact(c.Closing)
		return c
	})
	for _, s := range github.Spoofs(res.Ignored, author) {
		pub.warn(s)
	}
	pub.output(t.Output, res.URL)
	if err != nil {
		return err
	}
	if n := f.Notices[res.Action]; n != "" {
		pub.Log.Notice(pub.Secrets.Redact(n + " " + res.URL))
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

func (t *Deployment) Policy(p *Publication) Policy {
	state := "final"
	if p.Deployment != nil {
		state = p.Deployment.State
	}
	return Policy{What: "the deployment's " + state + " status", Optional: true}
}

// Start creates the deployment and its in_progress status.
func (t *Deployment) Start(ctx context.Context, pub *Publisher, description string) {
	if t.Environment == "" {
		return
	}
	id, err := t.API.CreateDeployment(ctx, t.Owner, t.Repo, github.DeploymentRequest{Ref: t.SHA, Environment: t.Environment, Description: pub.Secrets.Redact(description)})
	if err != nil {
		_ = pub.Failed(ctx, Policy{What: "the deployment to " + t.Environment + " (no deployments: write permission?)", Optional: true}, err)
		return
	}
	t.id = id
	err = t.API.CreateDeploymentStatus(ctx, t.Owner, t.Repo, id, "in_progress", "", t.RunURL, "cdkd deploy is running")
	_ = pub.Failed(ctx, Policy{What: "the deployment's in_progress status", Optional: true}, err)
}

func (t *Deployment) Publish(ctx context.Context, pub *Publisher, p *Publication, _ *Written) error {
	f := p.Deployment
	if t.id == 0 || f == nil {
		return nil
	}
	s := pub.Secrets
	return t.API.CreateDeploymentStatus(ctx, t.Owner, t.Repo, t.id, f.State, s.Redact(f.EnvironmentURL), t.RunURL, s.Redact(f.Description))
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
	// Conclude gives the conclusion, title and summary (Markdown).
	Conclude func(w *Written) (conclusion, title, summary string)
}

func (t *RequiredCheck) Policy(*Publication) Policy {
	return Policy{What: "the " + t.Name + " check run", Denied: "cannot create the check run (no checks: write permission?): %v"}
}

func (t *RequiredCheck) Publish(ctx context.Context, pub *Publisher, _ *Publication, w *Written) error {
	if t.HeadSHA == "" || t.Conclude == nil {
		return nil
	}
	conclusion, title, summary := t.Conclude(w)
	s := pub.Secrets
	_, err := t.API.CreateCheckRun(ctx, t.Owner, t.Repo, github.CheckRun{
		Name: s.Redact(t.Name), HeadSHA: t.HeadSHA, Status: "completed", Conclusion: conclusion, DetailsURL: t.DetailsURL,
		Title: s.Redact(title), Summary: s.Redact(summary),
	})
	return err
}
