package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// pullRequestFrom reads what the action needs to know about a pull request:
// whether it is the one being reviewed or deployed, and at which commit.
func pullRequestFrom(p *gh.PullRequest) ghctx.PullRequest {
	pr := ghctx.PullRequest{
		Number:         p.GetNumber(),
		HeadSHA:        p.GetHead().GetSHA(),
		HeadRef:        p.GetHead().GetRef(),
		BaseRef:        p.GetBase().GetRef(),
		MergeCommitSHA: p.GetMergeCommitSHA(),
		HTMLURL:        p.GetHTMLURL(),
		// Listings omit "merged"; a merge time says the same thing.
		Merged:   p.GetMerged() || p.MergedAt != nil,
		MergedAt: p.GetMergedAt().Time,
		Author:   p.GetUser().GetLogin(),
		HeadRepo: p.GetHead().GetRepo().GetFullName(),
		BaseRepo: p.GetBase().GetRepo().GetFullName(),
	}
	pr.Open = p.GetState() == "open" && !pr.Merged
	pr.Fork = pr.HeadRepo == "" || !strings.EqualFold(pr.HeadRepo, pr.BaseRepo)
	for _, l := range p.Labels {
		pr.Labels = append(pr.Labels, l.GetName())
	}
	return pr
}

// GetPullRequest reads one pull request.
func (c *Client) GetPullRequest(ctx context.Context, owner, repo string, number int) (ghctx.PullRequest, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return ghctx.PullRequest{}, fmt.Errorf("get pull request %s/%s#%d: %w", owner, repo, number, err)
	}
	return pullRequestFrom(p), nil
}

// PullRequestsForCommit lists the pull requests containing a commit, which is
// how a push to the default branch finds the pull request that was reviewed.
func (c *Client) PullRequestsForCommit(ctx context.Context, owner, repo, sha string) ([]ghctx.PullRequest, error) {
	opts := listOptions()
	prs, err := allPages(func(page int) ([]*gh.PullRequest, *gh.Response, error) {
		opts.Page = page
		return c.gh.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, &opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list pull requests for commit %s in %s/%s: %w", sha, owner, repo, err)
	}
	var out []ghctx.PullRequest
	for _, p := range prs {
		out = append(out, pullRequestFrom(p))
	}
	return out, nil
}

// CommitsBetween lists the SHAs of the commits reachable from head and not
// from base (GitHub's compare of base...head), oldest first: the commits a
// push brought, or a merge group adds to its base.
func (c *Client) CommitsBetween(ctx context.Context, owner, repo, base, head string) ([]string, error) {
	opts := listOptions()
	commits, err := allPages(func(page int) ([]*gh.RepositoryCommit, *gh.Response, error) {
		opts.Page = page
		cmp, resp, err := c.gh.Repositories.CompareCommits(ctx, owner, repo, base, head, &opts)
		if err != nil {
			return nil, resp, err
		}
		return cmp.Commits, resp, nil
	})
	if err != nil {
		return nil, fmt.Errorf("compare %s...%s in %s/%s: %w", base, head, owner, repo, err)
	}
	out := make([]string, 0, len(commits))
	for _, c := range commits {
		out = append(out, c.GetSHA())
	}
	return out, nil
}

// OpenPullRequestsFromHead lists the open pull requests whose head is the
// branch of headOwner's repository (a fork's owner, or owner): how a
// workflow_run job finds a fork's pull request, which the event's
// pull_requests list leaves out.
func (c *Client) OpenPullRequestsFromHead(ctx context.Context, owner, repo, headOwner, branch string) ([]ghctx.PullRequest, error) {
	opts := gh.PullRequestListOptions{State: "open", Head: headOwner + ":" + branch, ListOptions: listOptions()}
	prs, err := allPages(func(page int) ([]*gh.PullRequest, *gh.Response, error) {
		opts.Page = page
		return c.gh.PullRequests.List(ctx, owner, repo, &opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list open pull requests from %s:%s in %s/%s: %w", headOwner, branch, owner, repo, err)
	}
	out := make([]ghctx.PullRequest, 0, len(prs))
	for _, p := range prs {
		out = append(out, pullRequestFrom(p))
	}
	return out, nil
}

// PullRequestForRun picks, among prs, the pull request a workflow_run job
// reviews: the one whose head commit is the run's and whose base is this
// repository (owner/name). Everything it compares comes from GitHub (the
// event and the listing), never from the triggering run's artifact; none,
// or more than one, is no pull request.
func PullRequestForRun(prs []ghctx.PullRequest, headSHA, baseRepo string) (ghctx.PullRequest, bool) {
	var found []ghctx.PullRequest
	for _, p := range prs {
		if p.HeadSHA == headSHA && strings.EqualFold(p.BaseRepo, baseRepo) && p.Open {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return ghctx.PullRequest{}, false
	}
	return found[0], true
}
