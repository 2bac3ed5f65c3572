package publish

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

const (
	owner, repo = "o", "r"
	bot         = github.ActionsBotLogin
	secret      = "hunter2-very-secret-value"
	headSHA     = "0123456789abcdef0123456789abcdef01234567"
)

// fakeAPI is an in-memory GitHub that records every write, so tests prove
// what was written and that nothing else was. fail makes the next call of
// an operation ("create comment", "create check run", ...) fail.
type fakeAPI struct {
	comments    []github.Comment
	issues      []github.Issue // newest first
	checkRuns   []github.CheckRun
	deployments []string // "create env" and "status id state url description"
	prHead      string
	writes      []string
	fail        map[string]error
	nextID      int64
}

func (f *fakeAPI) err(op string) error {
	f.writes = append(f.writes, op)
	return f.fail[op]
}

func (f *fakeAPI) id() int64 { f.nextID++; return 100 + f.nextID }

func (f *fakeAPI) ListIssueComments(context.Context, string, string, int) ([]github.Comment, error) {
	return slices.Clone(f.comments), f.fail["list comments"]
}

func (f *fakeAPI) CreateIssueComment(_ context.Context, _, _ string, number int, body string) (github.Comment, error) {
	if err := f.err("create comment"); err != nil {
		return github.Comment{}, err
	}
	id := f.id()
	c := github.Comment{ID: id, Body: body, AuthorLogin: bot, HTMLURL: fmt.Sprintf("https://github.com/o/r/issues/%d#issuecomment-%d", number, id)}
	f.comments = append(f.comments, c)
	return c, nil
}

func (f *fakeAPI) EditIssueComment(_ context.Context, _, _ string, id int64, body string) (github.Comment, error) {
	if err := f.err(fmt.Sprintf("edit comment %d", id)); err != nil {
		return github.Comment{}, err
	}
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = body
			return f.comments[i], nil
		}
	}
	return github.Comment{}, apiError(http.StatusNotFound)
}

func (f *fakeAPI) DeleteIssueComment(_ context.Context, _, _ string, id int64) error {
	if err := f.err(fmt.Sprintf("delete comment %d", id)); err != nil {
		return err
	}
	f.comments = slices.DeleteFunc(f.comments, func(c github.Comment) bool { return c.ID == id })
	return nil
}

func (f *fakeAPI) GetPullRequest(_ context.Context, _, _ string, number int) (ghctx.PullRequest, error) {
	return ghctx.PullRequest{Number: number, HeadSHA: f.prHead}, nil
}

func (f *fakeAPI) CreateCheckRun(_ context.Context, _, _ string, cr github.CheckRun) (github.CheckRunRef, error) {
	if err := f.err("create check run"); err != nil {
		return github.CheckRunRef{}, err
	}
	f.checkRuns = append(f.checkRuns, cr)
	return github.CheckRunRef{ID: int64(len(f.checkRuns)), HTMLURL: fmt.Sprintf("https://github.com/o/r/runs/%d", len(f.checkRuns))}, nil
}

func (f *fakeAPI) UpdateCheckRun(_ context.Context, _, _ string, id int64, cr github.CheckRun) (github.CheckRunRef, error) {
	if err := f.err(fmt.Sprintf("update check run %d", id)); err != nil {
		return github.CheckRunRef{}, err
	}
	old := &f.checkRuns[id-1]
	old.ExternalID, old.Conclusion, old.Title, old.Summary = cr.ExternalID, cr.Conclusion, cr.Title, cr.Summary
	return github.CheckRunRef{ID: id, HTMLURL: fmt.Sprintf("https://github.com/o/r/runs/%d", id)}, nil
}

func (f *fakeAPI) ListIssues(context.Context, string, string, github.ListIssuesOptions) ([]github.Issue, error) {
	return slices.Clone(f.issues), f.fail["list issues"]
}

func (f *fakeAPI) CreateIssue(_ context.Context, _, _ string, title, body string, labels []string) (github.Issue, error) {
	if err := f.err("create issue"); err != nil {
		return github.Issue{}, err
	}
	n := int(f.id())
	is := github.Issue{Number: n, Title: title, Body: body, State: "open", AuthorLogin: bot, Labels: labels, HTMLURL: fmt.Sprintf("https://github.com/o/r/issues/%d", n)}
	f.issues = append([]github.Issue{is}, f.issues...)
	return is, nil
}

func (f *fakeAPI) EditIssue(_ context.Context, _, _ string, number int, e github.IssueEdit) (github.Issue, error) {
	if err := f.err(fmt.Sprintf("edit issue %d", number)); err != nil {
		return github.Issue{}, err
	}
	for i := range f.issues {
		if f.issues[i].Number == number {
			is := &f.issues[i]
			is.Title, is.Body = *e.Title, *e.Body
			if e.State != nil {
				is.State = *e.State
			}
			if e.Labels != nil {
				is.Labels = *e.Labels
			}
			return *is, nil
		}
	}
	return github.Issue{}, apiError(http.StatusNotFound)
}

func (f *fakeAPI) CreateDeployment(_ context.Context, _, _ string, d github.DeploymentRequest) (int64, error) {
	if err := f.err("create deployment"); err != nil {
		return 0, err
	}
	f.deployments = append(f.deployments, "create "+d.Environment+" "+d.Ref+" "+d.Description)
	return 42, nil
}

func (f *fakeAPI) CreateDeploymentStatus(_ context.Context, _, _ string, id int64, state, envURL, logURL, description string) error {
	if err := f.err("deployment status " + state); err != nil {
		return err
	}
	f.deployments = append(f.deployments, fmt.Sprintf("status %d %s %s %s %s", id, state, envURL, logURL, description))
	return nil
}

// everything is every text the fake received, for the leak check.
func (f *fakeAPI) everything() string {
	var b strings.Builder
	for _, c := range f.comments {
		b.WriteString(c.Body + "\n")
	}
	for _, is := range f.issues {
		b.WriteString(is.Title + "\n" + is.Body + "\n")
	}
	for _, cr := range f.checkRuns {
		b.WriteString(cr.Name + "\n" + cr.Title + "\n" + cr.Summary + "\n" + cr.ExternalID + "\n")
	}
	b.WriteString(strings.Join(f.deployments, "\n"))
	return b.String()
}

// apiError is what the client returns for an HTTP status.
func apiError(code int) error {
	return fmt.Errorf("wrapped: %w", &gh.ErrorResponse{Response: &http.Response{StatusCode: code}, Message: http.StatusText(code)})
}

// harness is a publisher over a runner that writes its log to a buffer
// and keeps the job summary in memory, with one secret known.
type harness struct {
	pub     *Publisher
	runner  *workflow.Runner
	log     *bytes.Buffer
	outputs map[string]string
	set     *secrets.Set
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	set := secrets.NewSet()
	set.Add(secret, "test")
	log := &bytes.Buffer{}
	runner := workflow.New(log, nil)
	runner.Redact = set.Redact
	h := &harness{runner: runner, log: log, outputs: map[string]string{}, set: set}
	h.pub = &Publisher{Log: runner, Secrets: set, SetOutput: func(n, v string) { h.outputs[n] = v }}
	return h
}
