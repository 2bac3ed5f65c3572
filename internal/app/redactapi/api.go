// Package redactapi is the edge every API-bound string passes: the GitHub
// API (package github) with each body, title, summary and text redacted,
// last, after it is complete.
package redactapi

import (
	"context"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// API is the edge every API-bound string passes: the runner masks
// only its own log, never what an action posts, so bodies, titles, summaries
// and texts are redacted here, last, after they are complete. Redaction only
// shortens text ("***" is no longer than any value the Set redacts by value),
// so a body rendered within a GitHub limit stays within it.
type API struct {
	// Next is the API the redacted calls go to.
	Next github.API
	// Secrets redacts every string sent.
	Secrets *secrets.Set
}

var _ github.API = API{}

func (a API) ListIssueComments(ctx context.Context, owner, repo string, number int) ([]github.Comment, error) {
	return a.Next.ListIssueComments(ctx, owner, repo, number)
}

func (a API) CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (github.Comment, error) {
	return a.Next.CreateIssueComment(ctx, owner, repo, number, redactBody(a.Secrets, body))
}

func (a API) EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (github.Comment, error) {
	return a.Next.EditIssueComment(ctx, owner, repo, id, redactBody(a.Secrets, body))
}

func (a API) DeleteIssueComment(ctx context.Context, owner, repo string, id int64) error {
	return a.Next.DeleteIssueComment(ctx, owner, repo, id)
}

func (a API) AuthenticatedLogin(ctx context.Context) (string, error) {
	return a.Next.AuthenticatedLogin(ctx)
}

func (a API) CreateCheckRun(ctx context.Context, owner, repo string, cr github.CheckRun) (github.CheckRunRef, error) {
	return a.Next.CreateCheckRun(ctx, owner, repo, a.checkRun(cr))
}

func (a API) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, cr github.CheckRun) (github.CheckRunRef, error) {
	return a.Next.UpdateCheckRun(ctx, owner, repo, id, a.checkRun(cr))
}

func (a API) ListCheckRunsForRef(ctx context.Context, owner, repo, ref, checkName string) ([]github.CheckRunInfo, error) {
	return a.Next.ListCheckRunsForRef(ctx, owner, repo, ref, checkName)
}

func (a API) ListLabelEvents(ctx context.Context, owner, repo string, number int) ([]github.LabelEvent, error) {
	return a.Next.ListLabelEvents(ctx, owner, repo, number)
}

func (a API) ListReviews(ctx context.Context, owner, repo string, number int) ([]github.Review, error) {
	return a.Next.ListReviews(ctx, owner, repo, number)
}

func (a API) CollaboratorPermission(ctx context.Context, owner, repo, login string) (string, error) {
	return a.Next.CollaboratorPermission(ctx, owner, repo, login)
}

func (a API) ListPushes(ctx context.Context, owner, repo, branch string) ([]github.Push, error) {
	return a.Next.ListPushes(ctx, owner, repo, branch)
}

func (a API) ListAutoMergeEvents(ctx context.Context, owner, repo string, number int) ([]github.AutoMergeEvent, error) {
	return a.Next.ListAutoMergeEvents(ctx, owner, repo, number)
}

func (a API) checkRun(cr github.CheckRun) github.CheckRun {
	cr.Name, cr.Title = a.Secrets.Redact(cr.Name), a.Secrets.Redact(cr.Title)
	cr.Summary, cr.Text = a.Secrets.Redact(cr.Summary), a.Secrets.Redact(cr.Text)
	// Our review record holds digits and hex, not a secret: redacting a
	// hex-like short secret inside it would make the deploy refuse its own
	// review. Anything not exactly of its format is redacted.
	if !gate.IsOwnRecord(cr.ExternalID) {
		cr.ExternalID = a.Secrets.Redact(cr.ExternalID)
	}
	anns := make([]github.Annotation, len(cr.Annotations))
	for i, ann := range cr.Annotations {
		ann.Title, ann.Message, ann.RawDetails = a.Secrets.Redact(ann.Title), a.Secrets.Redact(ann.Message), a.Secrets.Redact(ann.RawDetails)
		anns[i] = ann
	}
	cr.Annotations = anns
	return cr
}

func (a API) GetPullRequest(ctx context.Context, owner, repo string, number int) (ghctx.PullRequest, error) {
	return a.Next.GetPullRequest(ctx, owner, repo, number)
}

func (a API) OpenPullRequestsFromHead(ctx context.Context, owner, repo, headOwner, branch string) ([]ghctx.PullRequest, error) {
	return a.Next.OpenPullRequestsFromHead(ctx, owner, repo, headOwner, branch)
}

func (a API) PullRequestsForCommit(ctx context.Context, owner, repo, sha string) ([]ghctx.PullRequest, error) {
	return a.Next.PullRequestsForCommit(ctx, owner, repo, sha)
}

func (a API) CommitsBetween(ctx context.Context, owner, repo, base, head string) ([]string, error) {
	return a.Next.CommitsBetween(ctx, owner, repo, base, head)
}

func (a API) MatchingRefs(ctx context.Context, owner, repo, prefix string) ([]github.Ref, error) {
	return a.Next.MatchingRefs(ctx, owner, repo, prefix)
}

func (a API) ListIssues(ctx context.Context, owner, repo string, opts github.ListIssuesOptions) ([]github.Issue, error) {
	return a.Next.ListIssues(ctx, owner, repo, opts)
}

func (a API) CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (github.Issue, error) {
	return a.Next.CreateIssue(ctx, owner, repo, a.Secrets.Redact(title), redactBody(a.Secrets, body), labels)
}

func (a API) EditIssue(ctx context.Context, owner, repo string, number int, e github.IssueEdit) (github.Issue, error) {
	if e.Title != nil {
		t := a.Secrets.Redact(*e.Title)
		e.Title = &t
	}
	if e.Body != nil {
		b := redactBody(a.Secrets, *e.Body)
		e.Body = &b
	}
	return a.Next.EditIssue(ctx, owner, repo, number, e)
}

func (a API) CreateDeployment(ctx context.Context, owner, repo string, d github.DeploymentRequest) (int64, error) {
	d.Description = a.Secrets.Redact(d.Description)
	return a.Next.CreateDeployment(ctx, owner, repo, d)
}

func (a API) CreateDeploymentStatus(ctx context.Context, owner, repo string, id int64, state, environmentURL, logURL, description string) error {
	return a.Next.CreateDeploymentStatus(ctx, owner, repo, id, state, a.Secrets.Redact(environmentURL), logURL, a.Secrets.Redact(description))
}

// redactBody redacts a comment or issue body whose first line may be our
// hidden header (see prcomment.Redact: the header's hashes stay intact).
func redactBody(set *secrets.Set, body string) string {
	return prcomment.Redact(set, body)
}
