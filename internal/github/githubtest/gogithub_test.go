package githubtest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// TestGoGitHubRequestsAreValid drives every operation through go-github, the
// library the real client wraps: what it sends must pass validation, and
// what the fake answers must decode into its types.
func TestGoGitHubRequestsAreValid(t *testing.T) {
	srv := githubtest.New(t) // any invalid request fails this test
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 4, HeadSHA: "abc", MergeCommitSHA: "def", Merged: true})
	ctx := context.Background()
	client, err := gh.NewClient(srv.Client()).WithAuthToken("tok").WithEnterpriseURLs(srv.APIURL(), srv.APIURL())
	assert.NilError(t, err)

	user, _, err := client.Users.Get(ctx, "")
	assert.NilError(t, err)
	assert.Equal(t, user.GetLogin(), githubtest.DefaultLogin)

	for i := 0; i < 5; i++ {
		_, _, err := client.Issues.CreateComment(ctx, "o", "r", 4, &gh.IssueComment{Body: gh.Ptr("comment")})
		assert.NilError(t, err)
	}
	var all []*gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 2}}
	for {
		page, resp, err := client.Issues.ListComments(ctx, "o", "r", 4, opts)
		assert.NilError(t, err)
		all = append(all, page...)
		if resp.NextPage == 0 {
			assert.Equal(t, resp.LastPage, 0) // only on pages before the last
			break
		}
		assert.Equal(t, resp.LastPage, 3)
		opts.Page = resp.NextPage
	}
	assert.Assert(t, is.Len(all, 5))
	edited, _, err := client.Issues.EditComment(ctx, "o", "r", all[0].GetID(), &gh.IssueComment{Body: gh.Ptr("edited")})
	assert.NilError(t, err)
	assert.Equal(t, edited.GetBody(), "edited")
	_, err = client.Issues.DeleteComment(ctx, "o", "r", all[1].GetID())
	assert.NilError(t, err)

	cr, _, err := client.Checks.CreateCheckRun(ctx, "o", "r", gh.CreateCheckRunOptions{
		Name: "cdkd diff", HeadSHA: "abc", Status: gh.Ptr("in_progress"),
		StartedAt: &gh.Timestamp{Time: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		Output: &gh.CheckRunOutput{Title: gh.Ptr("t"), Summary: gh.Ptr("s"), Annotations: []*gh.CheckRunAnnotation{{
			Path: gh.Ptr("p"), StartLine: gh.Ptr(1), EndLine: gh.Ptr(1), AnnotationLevel: gh.Ptr("warning"), Message: gh.Ptr("m"),
		}}},
	})
	assert.NilError(t, err)
	cr, _, err = client.Checks.UpdateCheckRun(ctx, "o", "r", cr.GetID(), gh.UpdateCheckRunOptions{
		Name: "cdkd diff", Conclusion: gh.Ptr("success"),
		Output: &gh.CheckRunOutput{Title: gh.Ptr("t"), Summary: gh.Ptr("done")},
	})
	assert.NilError(t, err)
	assert.Equal(t, cr.GetStatus(), "completed")
	assert.Equal(t, cr.GetOutput().GetAnnotationsCount(), 1)
	listed, _, err := client.Checks.ListCheckRunsForRef(ctx, "o", "r", "abc", &gh.ListCheckRunsOptions{CheckName: gh.Ptr("cdkd diff"), Filter: gh.Ptr("all")})
	assert.NilError(t, err)
	assert.Equal(t, listed.GetTotal(), 1)
	assert.Equal(t, listed.CheckRuns[0].GetID(), cr.GetID())
	assert.Equal(t, listed.CheckRuns[0].GetApp().GetSlug(), "github-actions")

	pr, _, err := client.PullRequests.Get(ctx, "o", "r", 4)
	assert.NilError(t, err)
	assert.Equal(t, pr.GetHead().GetSHA(), "abc")
	prs, _, err := client.PullRequests.ListPullRequestsWithCommit(ctx, "o", "r", "def", nil)
	assert.NilError(t, err)
	assert.Assert(t, is.Len(prs, 1))

	issue, _, err := client.Issues.Create(ctx, "o", "r", &gh.IssueRequest{Title: gh.Ptr("Drift"), Labels: &[]string{"cdkd-drift"}})
	assert.NilError(t, err)
	assert.Equal(t, issue.GetNumber(), 5)
	issues, _, err := client.Issues.ListByRepo(ctx, "o", "r", &gh.IssueListByRepoOptions{State: "open", Labels: []string{"cdkd-drift"}, Creator: githubtest.DefaultLogin})
	assert.NilError(t, err)
	assert.Assert(t, is.Len(issues, 1))
	_, _, err = client.Issues.Edit(ctx, "o", "r", 5, &gh.IssueRequest{State: gh.Ptr("closed"), StateReason: gh.Ptr("completed")})
	assert.NilError(t, err)

	dep, _, err := client.Repositories.CreateDeployment(ctx, "o", "r", &gh.DeploymentRequest{
		Ref: gh.Ptr("abc"), Environment: gh.Ptr("production"), AutoMerge: gh.Ptr(false), RequiredContexts: &[]string{},
	})
	assert.NilError(t, err)
	_, _, err = client.Repositories.CreateDeploymentStatus(ctx, "o", "r", dep.GetID(), &gh.DeploymentStatusRequest{State: gh.Ptr("success")})
	assert.NilError(t, err)

	// Errors decode into go-github's types.
	srv.DenyWrites = true
	_, resp, err := client.Issues.CreateComment(ctx, "o", "r", 4, &gh.IssueComment{Body: gh.Ptr("x")})
	var ghErr *gh.ErrorResponse
	assert.Assert(t, errors.As(err, &ghErr), "%v", err)
	assert.Equal(t, ghErr.Message, "Resource not accessible by integration")
	assert.Equal(t, resp.StatusCode, http.StatusForbidden)
}
