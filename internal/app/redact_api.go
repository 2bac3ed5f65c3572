package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
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

func (r redactingAPI) checkRun(cr github.CheckRun) github.CheckRun {
	cr.Name, cr.Title = r.set.Redact(cr.Name), r.set.Redact(cr.Title)
	cr.Summary, cr.Text = r.set.Redact(cr.Summary), r.set.Redact(cr.Text)
	// Our review marker holds a digest, not a secret: redacting a hex-like
	// short secret inside it would make the deploy refuse its own review.
	if !strings.HasPrefix(cr.ExternalID, "cdkd-action:") {
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

func (r redactingAPI) PullRequestsForCommit(ctx context.Context, owner, repo, sha string) ([]github.PullRequest, error) {
	return r.api.PullRequestsForCommit(ctx, owner, repo, sha)
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
// hidden header. The header's SHA, digest and hashes are not secrets, but a
// short secret that happens to look like hex would turn them into *** and
// break every later comparison (a deploy would refuse its own review); so
// only the header's free-text fields are redacted there. The change set
// line after it is opaque (base64 of gzip): it is decoded and searched, and
// left out when it holds a secret or cannot be read back (the digest alone
// then guards the deploy).
func redactBody(set *secrets.Set, body string) string {
	first, rest, found := strings.Cut(body, "\n")
	h, ok := github.ParseHeader(first)
	if !ok || h.String() != first {
		return set.Redact(body)
	}
	h.Label, h.Cdkd = set.Redact(h.Label), set.Redact(h.Cdkd)
	if !found {
		return h.String()
	}
	if line, after, _ := strings.Cut(rest, "\n"); changeSetLeaks(set, h.Digest, line) {
		rest = after
	}
	return h.String() + "\n" + set.Redact(rest)
}

// changeSetLeaks reports whether line, when it is a change set line, must
// not be posted: what it decodes to holds a value the redactor would hide
// (a miss of the model's redaction must not ride out inside base64+gzip),
// or it does not decode against digest at all.
func changeSetLeaks(set *secrets.Set, digest, line string) bool {
	cs, err := gate.DecodeChangeSet("\n"+line, digest)
	if errors.Is(err, gate.ErrNoChangeSet) {
		return false // not a change set line
	}
	if err != nil {
		return true
	}
	decoded, err := json.Marshal(cs)
	return err != nil || set.Contains(string(decoded))
}
