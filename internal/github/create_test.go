package github_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

const (
	owner = githubtest.DefaultOwner
	repo  = githubtest.DefaultRepo
	sha   = "1111111111111111111111111111111111111111"
)

// waits records the waits a client asked for instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return ctx.Err()
}

func (w *waits) got() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func fakeClient(t *testing.T, opts ...github.Option) (*githubtest.Server, *github.Client, *waits) {
	t.Helper()
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Number: 7, HeadSHA: sha, State: "open"})
	w := &waits{}
	c, err := github.NewClient("ghs_token", srv.APIURL(), append([]github.Option{github.WithSleeper(w.sleep)}, opts...)...)
	assert.NilError(t, err)
	return srv, c, w
}

// faults a create can meet: GitHub applied it and the answer was lost, or
// it was not applied at all.
var createFaults = []struct {
	name    string
	fault   githubtest.Fault
	applied bool
}{
	{name: "applied, answered 502", fault: githubtest.Fault{Times: 1, Status: http.StatusBadGateway, Apply: true}, applied: true},
	{name: "applied, connection reset", fault: githubtest.Fault{Times: 1, Reset: true, Apply: true}, applied: true},
	{name: "not applied, answered 502", fault: githubtest.Fault{Times: 1, Status: http.StatusBadGateway}},
	{name: "not applied, connection reset", fault: githubtest.Fault{Times: 1, Reset: true}},
	{name: "not applied, 429 with Retry-After", fault: githubtest.Fault{Times: 1, Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "3"}}},
}

// A create whose answer was lost is never sent twice if it was applied,
// and is sent again if it was not: exactly one object either way.
func TestCreateIsNeverDuplicated(t *testing.T) {
	for _, tc := range createFaults {
		t.Run("comment/"+tc.name, func(t *testing.T) {
			srv, c, _ := fakeClient(t)
			f := tc.fault
			f.Operation = githubtest.OpCreateIssueComment
			srv.Inject(f)
			got, err := c.CreateIssueComment(context.Background(), owner, repo, 7, "<!-- cdkd-action:v1 kind=diff -->\nreport")
			assert.NilError(t, err)
			comments := srv.Comments(owner, repo, 7)
			assert.Assert(t, is.Len(comments, 1))
			assert.Equal(t, got.ID, comments[0].ID)
		})
		t.Run("check run/"+tc.name, func(t *testing.T) {
			srv, c, _ := fakeClient(t)
			f := tc.fault
			f.Operation = githubtest.OpCreateCheckRun
			srv.Inject(f)
			got, err := c.CreateCheckRun(context.Background(), owner, repo, github.CheckRun{
				Name: "cdkd diff", HeadSHA: sha, ExternalID: "cdkd-diff:v1:abc", Status: "completed", Conclusion: "neutral",
				Title: "1 to update", Summary: "report"})
			assert.NilError(t, err)
			runs := srv.CheckRuns()
			assert.Assert(t, is.Len(runs, 1))
			assert.Equal(t, got.ID, runs[0].ID)
			assert.Equal(t, runs[0].Conclusion, "neutral")
			assert.Equal(t, runs[0].Output.Summary, "report")
		})
		t.Run("issue/"+tc.name, func(t *testing.T) {
			srv, c, _ := fakeClient(t)
			f := tc.fault
			f.Operation = githubtest.OpCreateIssue
			srv.Inject(f)
			got, err := c.CreateIssue(context.Background(), owner, repo, "Drift detected", "<!-- cdkd-action:drift -->\nbody", []string{"drift"})
			assert.NilError(t, err)
			issues := srv.Issues()
			assert.Assert(t, is.Len(issues, 1))
			assert.Equal(t, got.Number, issues[0].Number)
		})
	}
}

// A check run found after a lost answer gets the whole report, its
// annotations once.
func TestCreateCheckRunFoundKeepsAnnotationsOnce(t *testing.T) {
	srv, c, _ := fakeClient(t)
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateCheckRun, Status: http.StatusBadGateway, Apply: true})
	var as []github.Annotation
	for i := range 60 {
		as = append(as, github.Annotation{Path: "cdk.out/manifest.json", StartLine: i + 1, EndLine: i + 1, Level: "warning", Message: "m"})
	}
	_, err := c.CreateCheckRun(context.Background(), owner, repo, github.CheckRun{Name: "cdkd drift", HeadSHA: sha, Status: "completed",
		Conclusion: "failure", Title: "drift", Summary: "s", Annotations: as})
	assert.NilError(t, err)
	runs := srv.CheckRuns()
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, len(runs[0].Annotations), 60)
	assert.Equal(t, runs[0].Conclusion, "failure")
}

// A create that keeps failing without being applied gives up after the
// attempts, having posted nothing twice.
func TestCreateGivesUp(t *testing.T) {
	srv, c, w := fakeClient(t, github.WithMaxAttempts(3))
	srv.Inject(githubtest.Fault{Times: 10, Operation: githubtest.OpCreateIssueComment, Status: http.StatusBadGateway})
	_, err := c.CreateIssueComment(context.Background(), owner, repo, 7, "report")
	assert.ErrorContains(t, err, "502")
	// Each failed attempt waits before looking for what it may have made.
	assert.Equal(t, len(w.got()), 3)
	assert.Assert(t, is.Len(srv.Comments(owner, repo, 7), 0))
}

// One stalled reply does not hold the step: each attempt has its own time
// limit, and a read is retried; a stalled create is looked for first.
func TestStalledReplyIsBounded(t *testing.T) {
	srv, c, _ := fakeClient(t, github.WithAttemptTimeout(300*time.Millisecond))
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpGetPullRequest, Delay: time.Minute, Status: http.StatusOK})
	start := time.Now()
	pr, err := c.GetPullRequest(context.Background(), owner, repo, 7)
	assert.NilError(t, err)
	assert.Equal(t, pr.HeadSHA, sha)
	assert.Assert(t, time.Since(start) < 30*time.Second, "took %s", time.Since(start))

	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Delay: time.Minute, Apply: true, Status: http.StatusCreated})
	_, err = c.CreateIssueComment(context.Background(), owner, repo, 7, "report")
	assert.NilError(t, err)
	assert.Assert(t, is.Len(srv.Comments(owner, repo, 7), 1))
}

// go-github does not treat 429 as a rate limit; the client retries it,
// honouring Retry-After, on reads and writes.
func TestTooManyRequestsIsRetried(t *testing.T) {
	srv, c, w := fakeClient(t)
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpGetPullRequest, Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "4"}})
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateIssueComment, Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "2"}})
	_, err := c.GetPullRequest(context.Background(), owner, repo, 7)
	assert.NilError(t, err)
	_, err = c.CreateIssueComment(context.Background(), owner, repo, 7, "report")
	assert.NilError(t, err)
	assert.DeepEqual(t, w.got(), []time.Duration{4 * time.Second, 2 * time.Second})
	assert.Assert(t, is.Len(srv.Comments(owner, repo, 7), 1))
}

// A deployment status whose answer was lost is sent again: a second copy
// of the same status is harmless, a missing final status is not.
func TestDeploymentStatusIsResent(t *testing.T) {
	srv, c, _ := fakeClient(t)
	id, err := c.CreateDeployment(context.Background(), owner, repo, github.DeploymentRequest{Ref: sha, Environment: "prod"})
	assert.NilError(t, err)
	srv.Inject(githubtest.Fault{Times: 1, Operation: githubtest.OpCreateDeploymentStatus, Status: http.StatusBadGateway})
	assert.NilError(t, c.CreateDeploymentStatus(context.Background(), owner, repo, id, "success", "", "", "done"))
	deps := srv.Deployments()
	assert.Assert(t, is.Len(deps, 1))
	assert.Equal(t, deps[0].Statuses[len(deps[0].Statuses)-1].State, "success")
}
