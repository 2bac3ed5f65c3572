package github

import (
	"context"
	"fmt"
	"unicode/utf8"

	gh "github.com/google/go-github/v84/github"
)

// DeploymentRequest describes a deployment to record. AutoMerge is normally
// false (the action deploys what was merged, it never merges) and
// RequiredContexts empty: the workflow already gates on the checks it needs,
// and nil is sent as [] so GitHub does not re-check commit statuses.
type DeploymentRequest struct {
	Ref              string
	Environment      string
	Description      string
	AutoMerge        bool
	RequiredContexts []string
}

// CreateDeployment records a deployment and returns its ID. A lost answer
// (5xx, reset) is not retried: GitHub may have made the deployment, and
// there is no marker to find it by; the caller warns instead.
func (c *Client) CreateDeployment(ctx context.Context, owner, repo string, d DeploymentRequest) (int64, error) {
	contexts := d.RequiredContexts
	if contexts == nil {
		contexts = []string{}
	}
	req := &gh.DeploymentRequest{
		Ref:              gh.Ptr(d.Ref),
		AutoMerge:        gh.Ptr(d.AutoMerge),
		RequiredContexts: &contexts,
		Environment:      optional(d.Environment),
		Description:      optional(d.Description),
	}
	dep, _, err := c.gh.Repositories.CreateDeployment(ctx, owner, repo, req)
	if err != nil {
		return 0, fmt.Errorf("create deployment of %s to %q in %s/%s: %w", d.Ref, d.Environment, owner, repo, err)
	}
	return dep.GetID(), nil
}

// CreateDeploymentStatus sets a deployment's state ("in_progress",
// "success", "failure", "error", ...) with links to the environment and to
// the run's log. GitHub limits the description to 140 characters; a longer
// one is shortened rather than rejected.
func (c *Client) CreateDeploymentStatus(ctx context.Context, owner, repo string, id int64, state, environmentURL, logURL, description string) error {
	req := &gh.DeploymentStatusRequest{
		State:          gh.Ptr(state),
		EnvironmentURL: optional(environmentURL),
		LogURL:         optional(logURL),
		Description:    optional(truncate(description, maxStatusDescription)),
	}
	create := func() (struct{}, error) {
		_, _, err := c.gh.Repositories.CreateDeploymentStatus(ctx, owner, repo, id, req)
		return struct{}{}, err
	}
	// A status sent twice says the same thing twice and the latest wins:
	// after a lost answer it is simply sent again.
	resend := func() (struct{}, bool, error) { return struct{}{}, false, nil }
	if _, err := createOnce(ctx, c, fmt.Sprintf("deployment %d status %q", id, state), create, resend); err != nil {
		return fmt.Errorf("set deployment %d status %q in %s/%s: %w", id, state, owner, repo, err)
	}
	return nil
}

// maxStatusDescription is GitHub's limit on a deployment status description.
const maxStatusDescription = 140

// truncate shortens s to at most n characters, ending with an ellipsis when
// cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
