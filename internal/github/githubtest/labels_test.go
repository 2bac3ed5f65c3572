package githubtest_test

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// Label events against the fake, which validates the request and answers
// in GitHub's shape: a seeded label before the merge, one added after.
func TestListLabelEvents(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 7, Merged: true, Labels: []string{"deploy"}})
	srv.LabelPullRequest("o", "r", 7, "cdkd:allow-destructive", "mallory")
	srv.SetToken("t", "octocat")
	c, err := github.NewClient("t", srv.APIURL())
	assert.NilError(t, err)
	got, err := c.ListLabelEvents(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.Equal(t, len(got), 2)
	assert.Equal(t, got[0].Label, "deploy")
	assert.Equal(t, got[1].Label, "cdkd:allow-destructive")
	assert.Equal(t, got[1].Event, "labeled")
	pr, err := c.GetPullRequest(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.Assert(t, got[0].At.Before(pr.MergedAt) && got[1].At.After(pr.MergedAt))
}

// A label added now and removed later, as a reviewer re-approving does:
// both events are listed in order, and the label is off the pull request.
func TestLabelNowAndRemoveLabelEvent(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddPullRequest(githubtest.PR{Owner: "o", Repo: "r", Number: 7})
	srv.LabelNow("o", "r", 7, "security-approved", "carol")
	srv.RemoveLabelEvent("o", "r", 7, "security-approved", "dave", time.Time{})
	srv.SetToken("t", "octocat")
	c, err := github.NewClient("t", srv.APIURL())
	assert.NilError(t, err)
	got, err := c.ListLabelEvents(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.Equal(t, len(got), 2)
	assert.Equal(t, got[0].Event+" "+got[0].Actor, "labeled carol")
	assert.Equal(t, got[1].Event+" "+got[1].Actor, "unlabeled dave")
	assert.Assert(t, got[1].At.After(got[0].At))
	pr, err := c.GetPullRequest(context.Background(), "o", "r", 7)
	assert.NilError(t, err)
	assert.Equal(t, len(pr.Labels), 0)
}
