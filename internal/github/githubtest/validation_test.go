package githubtest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

func TestInvalidRequestsAreRejectedAndReported(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		url        string // relative to the API base unless absolute
		body       string
		wantStatus int
		wantReport string // substring of the single t.Errorf
	}{
		{
			name:       "check run conclusion not in enum",
			method:     http.MethodPost,
			url:        "/repos/o/r/check-runs",
			body:       `{"name":"cdkd diff","head_sha":"abc","conclusion":"passed"}`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "POST /repos/o/r/check-runs (checks/create) answered 422: request body: /conclusion: value is not one of the allowed values",
		},
		{
			name:       "check run without head_sha",
			method:     http.MethodPost,
			url:        "/repos/o/r/check-runs",
			body:       `{"name":"cdkd diff"}`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: `property "head_sha" is missing`,
		},
		{
			name:       "check run started_at not a date-time",
			method:     http.MethodPost,
			url:        "/repos/o/r/check-runs",
			body:       `{"name":"n","head_sha":"abc","started_at":"yesterday"}`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "/started_at",
		},
		{
			name:       "completed check run update without conclusion",
			method:     http.MethodPatch,
			url:        "/repos/o/r/check-runs/1",
			body:       `{"status":"completed"}`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "checks/update",
		},
		{
			name:       "comment body of the wrong type",
			method:     http.MethodPost,
			url:        "/repos/o/r/issues/1/comments",
			body:       `{"body":42}`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "/body: value must be a string",
		},
		{
			name:       "comment without body",
			method:     http.MethodPost,
			url:        "/repos/o/r/issues/1/comments",
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "request body",
		},
		{
			name:       "body that is not JSON",
			method:     http.MethodPost,
			url:        "/repos/o/r/issues/1/comments",
			body:       `body=hello`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "request body",
		},
		{
			name:       "issue number that is not a number",
			method:     http.MethodGet,
			url:        "/repos/o/r/issues/one/comments",
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: `path parameter "issue_number"`,
		},
		{
			name:       "per_page that is not a number",
			method:     http.MethodGet,
			url:        "/repos/o/r/issues/1/comments?per_page=all",
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: `query parameter "per_page"`,
		},
		{
			name:       "issue state not in enum",
			method:     http.MethodGet,
			url:        "/repos/o/r/issues?state=opened",
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: `query parameter "state"`,
		},
		{
			name:       "deployment status state not in enum",
			method:     http.MethodPost,
			url:        "/repos/o/r/deployments/1/statuses",
			body:       `{"state":"done"}`,
			wantStatus: http.StatusUnprocessableEntity,
			wantReport: "/state: value is not one of the allowed values",
		},
		{
			name:       "operation not in the subset",
			method:     http.MethodGet,
			url:        "/repos/o/r/branches",
			wantStatus: http.StatusNotFound,
			wantReport: "no operation GET /repos/o/r/branches in the vendored GitHub OpenAPI subset",
		},
		{
			name:       "method not in the subset",
			method:     http.MethodGet,
			url:        "/repos/o/r/check-runs/1",
			wantStatus: http.StatusNotFound,
			wantReport: "no operation GET /repos/o/r/check-runs/1",
		},
		{
			name:       "path outside the base path",
			method:     http.MethodGet,
			url:        "ROOT/repos/o/r/issues",
			wantStatus: http.StatusNotFound,
			wantReport: `outside the API base path "/api/v3"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, tb := newCaptured(t)
			url := srv.APIURL() + tc.url
			if rest, ok := strings.CutPrefix(tc.url, "ROOT"); ok {
				url = srv.URL + rest
			}
			res := doAs(t, srv, "tok", tc.method, url, tc.body)

			assert.Equal(t, res.Status, tc.wantStatus, res.Body)
			errs := tb.Errors()
			assert.Assert(t, is.Len(errs, 1), "%q", errs)
			t.Log(errs[0])
			assert.Assert(t, is.Contains(errs[0], tc.wantReport))
			assert.Assert(t, is.Len(srv.Rejections(), 1))
			assert.Equal(t, srv.Rejections()[0].Status, tc.wantStatus)
			// Nothing was stored.
			assert.Assert(t, is.Len(srv.CheckRuns(), 0))
			assert.Assert(t, is.Len(srv.Deployments(), 0))
		})
	}
}

func TestValidRequestIsNotReported(t *testing.T) {
	srv, tb := newCaptured(t)
	res := do(t, srv, http.MethodPost, "/repos/o/r/check-runs",
		`{"name":"cdkd diff","head_sha":"abc","status":"completed","conclusion":"success","started_at":"2024-01-01T00:00:00Z",`+
			`"output":{"title":"t","summary":"s"}}`)
	assert.Equal(t, res.Status, http.StatusCreated, res.Body)
	assert.Assert(t, is.Len(tb.Errors(), 0))
	assert.Assert(t, is.Len(srv.Rejections(), 0))
}

func TestAllowInvalidAnswersWithoutReporting(t *testing.T) {
	srv, tb := newCaptured(t, githubtest.AllowInvalid())
	res := do(t, srv, http.MethodPost, "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc","conclusion":"passed"}`)
	assert.Equal(t, res.Status, http.StatusUnprocessableEntity)
	assert.Assert(t, is.Contains(res.Body, `"message":"Invalid request.`))
	assert.Assert(t, is.Len(tb.Errors(), 0))
	assert.Assert(t, is.Len(srv.Rejections(), 1))
}

func TestEveryOperationIsServed(t *testing.T) {
	// Each operation in the vendored subset answers something other than
	// "no handler"; a request that reaches a handler is never reported.
	srv, tb := newCaptured(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 1, HeadSHA: "abc"})
	requests := []struct{ method, path, body string }{
		{"GET", "/user", ""},
		{"GET", "/repos/o/r/issues/1/comments", ""},
		{"POST", "/repos/o/r/issues/1/comments", `{"body":"hi"}`},
		{"PATCH", "/repos/o/r/issues/comments/100001", `{"body":"edited"}`},
		{"DELETE", "/repos/o/r/issues/comments/100001", ""},
		{"POST", "/repos/o/r/check-runs", `{"name":"n","head_sha":"abc"}`},
		{"PATCH", "/repos/o/r/check-runs/200001", `{"conclusion":"success"}`},
		{"GET", "/repos/o/r/commits/abc/check-runs", ""},
		{"GET", "/repos/o/r/pulls/1", ""},
		{"GET", "/repos/o/r/pulls?state=open&head=o:feature-1", ""},
		{"GET", "/repos/o/r/commits/abc/pulls", ""},
		{"GET", "/repos/o/r/issues", ""},
		{"POST", "/repos/o/r/issues", `{"title":"t"}`},
		{"PATCH", "/repos/o/r/issues/2", `{"state":"closed"}`},
		{"POST", "/repos/o/r/deployments", `{"ref":"main"}`},
		{"POST", "/repos/o/r/deployments/300001/statuses", `{"state":"success"}`},
	}
	ops := map[string]bool{}
	for _, r := range requests {
		res := do(t, srv, r.method, r.path, r.body)
		assert.Assert(t, res.Status < 300, "%s %s: %d %s", r.method, r.path, res.Status, res.Body)
	}
	for _, r := range srv.Requests() {
		ops[r.Operation] = true
	}
	assert.Assert(t, is.Len(tb.Errors(), 0))
	for _, op := range []string{
		githubtest.OpGetAuthenticatedUser, githubtest.OpListIssueComments, githubtest.OpCreateIssueComment,
		githubtest.OpUpdateIssueComment, githubtest.OpDeleteIssueComment, githubtest.OpCreateCheckRun,
		githubtest.OpUpdateCheckRun, githubtest.OpListCheckRunsForRef, githubtest.OpGetPullRequest, githubtest.OpListPullRequests, githubtest.OpListPullRequestsForCommit,
		githubtest.OpListIssues, githubtest.OpCreateIssue, githubtest.OpUpdateIssue,
		githubtest.OpCreateDeployment, githubtest.OpCreateDeploymentStatus,
	} {
		assert.Assert(t, ops[op], "operation %s not exercised", op)
	}
	assert.Equal(t, len(ops), 16, fmt.Sprint(ops))
}
