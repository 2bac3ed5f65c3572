package app

import (
	"context"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// redactingAPI is the edge every API-bound string passes: the runner masks
// only its own log, never what an action posts, so bodies, titles, summaries
// and texts are redacted here, last, after they are complete. Redaction only
// shortens text ("***" is no longer than any value the Set redacts by value),
// so a body rendered within a GitHub limit stays within it.
type redactingAPI struct {
	api github.API
	set *secrets.Set
}

var _ github.API = redactingAPI{}

func (r redactingAPI) ListIssueComments(ctx context.Context, owner, repo string, number int) ([]github.Comment, error) {
	return r.api.ListIssueComments(ctx, owner, repo, number)
}

func (r redactingAPI) CreateIssueComment(ctx context.Context, owner, repo string, number int, body string) (github.Comment, error) {
	return r.api.CreateIssueComment(ctx, owner, repo, number, redactBody(r.set, body))
}

func (r redactingAPI) EditIssueComment(ctx context.Context, owner, repo string, id int64, body string) (github.Comment, error) {
	return r.api.EditIssueComment(ctx, owner, repo, id, redactBody(r.set, body))
}

func (r redactingAPI) DeleteIssueComment(ctx context.Context, owner, repo string, id int64) error {
	return r.api.DeleteIssueComment(ctx, owner, repo, id)
}

func (r redactingAPI) AuthenticatedLogin(ctx context.Context) (string, error) {
	return r.api.AuthenticatedLogin(ctx)
}

func (r redactingAPI) CreateCheckRun(ctx context.Context, owner, repo string, cr github.CheckRun) (github.CheckRunRef, error) {
	return r.api.CreateCheckRun(ctx, owner, repo, r.checkRun(cr))
}

func (r redactingAPI) UpdateCheckRun(ctx context.Context, owner, repo string, id int64, cr github.CheckRun) (github.CheckRunRef, error) {
	return r.api.UpdateCheckRun(ctx, owner, repo, id, r.checkRun(cr))
}

func (r redactingAPI) ListCheckRunsForRef(ctx context.Context, owner, repo, ref, checkName string) ([]github.CheckRunInfo, error) {
	return r.api.ListCheckRunsForRef(ctx, owner, repo, ref, checkName)
}

func (r redactingAPI) ListLabelEvents(ctx context.Context, owner, repo string, number int) ([]github.LabelEvent, error) {
	return r.api.ListLabelEvents(ctx, owner, repo, number)
}

func (r redactingAPI) ListReviews(ctx context.Context, owner, repo string, number int) ([]github.Review, error) {
	return r.api.ListReviews(ctx, owner, repo, number)
}

func (r redactingAPI) CollaboratorPermission(ctx context.Context, owner, repo, login string) (string, error) {
	return r.api.CollaboratorPermission(ctx, owner, repo, login)
}

func (r redactingAPI) ListPushes(ctx context.Context, owner, repo, branch string) ([]github.Push, error) {
	return r.api.ListPushes(ctx, owner, repo, branch)
}

func (r redactingAPI) ListAutoMergeEvents(ctx context.Context, owner, repo string, number int) ([]github.AutoMergeEvent, error) {
	return r.api.ListAutoMergeEvents(ctx, owner, repo, number)
}

func (r redactingAPI) checkRun(cr github.CheckRun) github.CheckRun {
	cr.Name, cr.Title = r.set.Redact(cr.Name), r.set.Redact(cr.Title)
	cr.Summary, cr.Text = r.set.Redact(cr.Summary), r.set.Redact(cr.Text)
	// Our review marker holds digits and hex, not a secret: redacting a
	// hex-like short secret inside it would make the deploy refuse its own
	// review. Anything not exactly of its format is redacted.
	if !gate.IsOwnMarker(cr.ExternalID) {
		cr.ExternalID = r.set.Redact(cr.ExternalID)
	}
	anns := make([]github.Annotation, len(cr.Annotations))
	for i, a := range cr.Annotations {
		a.Title, a.Message, a.RawDetails = r.set.Redact(a.Title), r.set.Redact(a.Message), r.set.Redact(a.RawDetails)
		anns[i] = a
	}
	cr.Annotations = anns
	return cr
}

func (r redactingAPI) GetPullRequest(ctx context.Context, owner, repo string, number int) (github.PullRequest, error) {
	return r.api.GetPullRequest(ctx, owner, repo, number)
}

func (r redactingAPI) OpenPullRequestsFromHead(ctx context.Context, owner, repo, headOwner, branch string) ([]github.PullRequest, error) {
	return r.api.OpenPullRequestsFromHead(ctx, owner, repo, headOwner, branch)
}

func (r redactingAPI) PullRequestsForCommit(ctx context.Context, owner, repo, sha string) ([]github.PullRequest, error) {
	return r.api.PullRequestsForCommit(ctx, owner, repo, sha)
}

func (r redactingAPI) CommitsBetween(ctx context.Context, owner, repo, base, head string) ([]string, error) {
	return r.api.CommitsBetween(ctx, owner, repo, base, head)
}

func (r redactingAPI) MatchingRefs(ctx context.Context, owner, repo, prefix string) ([]github.Ref, error) {
	return r.api.MatchingRefs(ctx, owner, repo, prefix)
}

func (r redactingAPI) ListIssues(ctx context.Context, owner, repo string, opts github.ListIssuesOptions) ([]github.Issue, error) {
	return r.api.ListIssues(ctx, owner, repo, opts)
}

func (r redactingAPI) CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (github.Issue, error) {
	return r.api.CreateIssue(ctx, owner, repo, r.set.Redact(title), redactBody(r.set, body), labels)
}

func (r redactingAPI) EditIssue(ctx context.Context, owner, repo string, number int, e github.IssueEdit) (github.Issue, error) {
	if e.Title != nil {
		t := r.set.Redact(*e.Title)
		e.Title = &t
	}
	if e.Body != nil {
		b := redactBody(r.set, *e.Body)
		e.Body = &b
	}
	return r.api.EditIssue(ctx, owner, repo, number, e)
}

func (r redactingAPI) CreateDeployment(ctx context.Context, owner, repo string, d github.DeploymentRequest) (int64, error) {
	d.Description = r.set.Redact(d.Description)
	return r.api.CreateDeployment(ctx, owner, repo, d)
}

func (r redactingAPI) CreateDeploymentStatus(ctx context.Context, owner, repo string, id int64, state, environmentURL, logURL, description string) error {
	return r.api.CreateDeploymentStatus(ctx, owner, repo, id, state, r.set.Redact(environmentURL), logURL, r.set.Redact(description))
}

// redactBody redacts a comment or issue body whose first line may be our
// hidden header (see prcomment.Redact: the header's hashes stay intact).
func redactBody(set *secrets.Set, body string) string {
	return prcomment.Redact(set, body)
}
