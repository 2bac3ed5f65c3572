package github

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	gh "github.com/google/go-github/v84/github"
)

// CheckRunInfo is an existing check run as a deploy reads it back: the
// diff command records its review in the external ID, which, unlike a
// comment, nobody can edit in GitHub's UI.
type CheckRunInfo struct {
	ID         int64
	Name       string
	HeadSHA    string
	ExternalID string
	Conclusion string
	// AppSlug is the GitHub App that created the run ("github-actions" for
	// GITHUB_TOKEN); only apps can create check runs.
	AppSlug string
	HTMLURL string
	// CompletedAt is when the run completed (zero while it has not): a
	// review is shown once its diff's run completed.
	CompletedAt time.Time
}

// ListCheckRunsForRef lists every check run named checkName on ref (a
// commit SHA, branch or tag), all pages, oldest first (IDs grow with time).
// It asks for all runs, not GitHub's default of the latest per name, so
// that the caller decides which one counts.
func (c *Client) ListCheckRunsForRef(ctx context.Context, owner, repo, ref, checkName string) ([]CheckRunInfo, error) {
	opts := gh.ListCheckRunsOptions{CheckName: optional(checkName), Filter: gh.Ptr("all"), ListOptions: listOptions()}
	runs, err := allPages(func(page int) ([]*gh.CheckRun, *gh.Response, error) {
		opts.Page = page
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, owner, repo, ref, &opts)
		if err != nil {
			return nil, resp, err
		}
		return res.CheckRuns, resp, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list check runs %q on %s in %s/%s: %w", checkName, ref, owner, repo, err)
	}
	out := make([]CheckRunInfo, 0, len(runs))
	for _, r := range runs {
		out = append(out, CheckRunInfo{
			ID:         r.GetID(),
			Name:       r.GetName(),
			HeadSHA:    r.GetHeadSHA(),
			ExternalID: r.GetExternalID(),
			Conclusion: r.GetConclusion(),
			AppSlug:    r.GetApp().GetSlug(),
			HTMLURL:    r.GetHTMLURL(),
			// GitHub's times have one-second resolution.
			CompletedAt: r.GetCompletedAt().Time,
		})
	}
	slices.SortStableFunc(out, func(a, b CheckRunInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
