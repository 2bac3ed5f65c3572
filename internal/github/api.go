package github

import (
	"context"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// API is every GitHub call the action makes. The app depends on it rather
// than on *Client so that its tests can use fakes.
type API interface {
	CommentsAPI

	AuthenticatedLogin(ctx context.Context) (string, error)

	CreateCheckRun(ctx context.Context, owner, repo string, cr CheckRun) (CheckRunRef, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, cr CheckRun) (CheckRunRef, error)
	ListCheckRunsForRef(ctx context.Context, owner, repo, ref, checkName string) ([]CheckRunInfo, error)

	GetPullRequest(ctx context.Context, owner, repo string, number int) (ghctx.PullRequest, error)
	PullRequestsForCommit(ctx context.Context, owner, repo, sha string) ([]ghctx.PullRequest, error)
	CommitsBetween(ctx context.Context, owner, repo, base, head string) ([]string, error)
	MatchingRefs(ctx context.Context, owner, repo, prefix string) ([]Ref, error)
	OpenPullRequestsFromHead(ctx context.Context, owner, repo, headOwner, branch string) ([]ghctx.PullRequest, error)
	ListLabelEvents(ctx context.Context, owner, repo string, number int) ([]LabelEvent, error)
	ListReviews(ctx context.Context, owner, repo string, number int) ([]Review, error)
	CollaboratorPermission(ctx context.Context, owner, repo, login string) (string, error)
	ListPushes(ctx context.Context, owner, repo, branch string) ([]Push, error)
	ListAutoMergeEvents(ctx context.Context, owner, repo string, number int) ([]AutoMergeEvent, error)

	ListIssues(ctx context.Context, owner, repo string, opts ListIssuesOptions) ([]Issue, error)
	CreateIssue(ctx context.Context, owner, repo, title, body string, labels []string) (Issue, error)
	EditIssue(ctx context.Context, owner, repo string, number int, e IssueEdit) (Issue, error)

	CreateDeployment(ctx context.Context, owner, repo string, d DeploymentRequest) (int64, error)
	CreateDeploymentStatus(ctx context.Context, owner, repo string, id int64, state, environmentURL, logURL, description string) error
}

var _ API = (*Client)(nil)
