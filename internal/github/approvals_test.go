package github_test

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// The approval reads against the fake, whose requests are validated
// against GitHub's OpenAPI description: a permission, who pushed a head,
// and when auto-merge was enabled; and a review's and a label's account
// types.
func TestApprovalReads(t *testing.T) {
	srv, c, _ := fakeClient(t)
	ctx := context.Background()
	srv.SetPermission(owner, repo, "maria", "maintain")
	srv.PushAs(owner, repo, 7, "2222222222222222222222222222222222222222", "mallory")
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	srv.SetAutoMerge(owner, repo, 7, true, "dave", at)
	srv.SetAutoMerge(owner, repo, 7, false, "dave", at.Add(time.Minute))
	srv.ReviewPullRequest(owner, repo, 7, githubtest.Review{Login: "github-actions[bot]", State: "APPROVED"})
	srv.AddLabelEvent(owner, repo, 7, "security-approved", "alice", at)

	level, err := c.CollaboratorPermission(ctx, owner, repo, "maria")
	assert.NilError(t, err)
	assert.Equal(t, level, "write", "maintain reads as write")
	level, err = c.CollaboratorPermission(ctx, owner, repo, "stranger")
	assert.NilError(t, err)
	assert.Equal(t, level, "read")

	pushes, err := c.ListPushes(ctx, owner, repo, "feature-7")
	assert.NilError(t, err)
	assert.Equal(t, len(pushes), 2)
	assert.Equal(t, pushes[0].After, "2222222222222222222222222222222222222222")
	assert.Equal(t, pushes[0].Actor, "mallory")
	assert.Equal(t, pushes[0].ActorType, "User")
	assert.Equal(t, pushes[1].Type, "branch_creation")

	events, err := c.ListAutoMergeEvents(ctx, owner, repo, 7)
	assert.NilError(t, err)
	assert.DeepEqual(t, events, []github.AutoMergeEvent{{Enabled: true, Actor: "dave", At: at}, {Enabled: false, Actor: "dave", At: at.Add(time.Minute)}})

	reviews, err := c.ListReviews(ctx, owner, repo, 7)
	assert.NilError(t, err)
	assert.Equal(t, reviews[0].UserType, "Bot")
	labels, err := c.ListLabelEvents(ctx, owner, repo, 7)
	assert.NilError(t, err)
	assert.Equal(t, labels[0].ActorType, "User")
	assert.Equal(t, len(srv.Rejections()), 0, "%v", srv.Rejections())
}
