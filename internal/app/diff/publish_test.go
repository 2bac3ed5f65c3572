package diff

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
)

const headSHA = "1111111111111111111111111111111111111111"

// Where a diff's report goes: the sticky comment only for a pull request
// with comments on, the check run that vouches for the review only when
// the comment holds one, and the merge queue's check on the head only
// when asked, with a check run, and not from a shard.
func TestPublishTargets(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        config.Config
		pr         bool
		failed     bool
		comment    bool
		checks     []string // check runs written, by name
		vouches    bool     // the diff check run vouches for the comment
		queueCheck bool
	}{
		{name: "a pull request", cfg: config.Config{CheckRun: true}, pr: true, comment: true, checks: []string{"cdkd diff"}, vouches: true},
		{name: "comment off", cfg: config.Config{CheckRun: true, Comment: config.CommentOff}, pr: true, checks: []string{"cdkd diff"}},
		{name: "a push", cfg: config.Config{CheckRun: true}, checks: []string{"cdkd diff"}},
		{name: "no check run", cfg: config.Config{}, pr: true, comment: true},
		{name: "a merge queue", cfg: config.Config{CheckRun: true, MergeQueue: true}, pr: true, comment: true,
			checks: []string{"cdkd diff", "cdkd merge queue"}, vouches: true},
		{name: "a merge queue, no check run", cfg: config.Config{MergeQueue: true}, pr: true, comment: true},
		{name: "a failed diff", cfg: config.Config{CheckRun: true}, pr: true, failed: true, comment: true, checks: []string{"cdkd diff"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := githubtest.New(t)
			gh := ghctx.Context{Owner: githubtest.DefaultOwner, Repo: githubtest.DefaultRepo, HeadSHA: headSHA, SHA: headSHA,
				RunnerTemp: t.TempDir(), ServerURL: "https://github.com"}
			if tc.pr {
				srv.AddPullRequest(githubtest.PR{Number: 7, HeadSHA: headSHA, State: "open"})
				gh.PR = &ghctx.PullRequest{Number: 7, HeadSHA: headSHA}
			}
			x := newTestRun(t, tc.cfg, gh)
			x.parts.SetLocal(false)
			client, err := github.NewClient("ghs_token", srv.APIURL())
			assert.NilError(t, err)
			x.Channels.API = client
			summary := filepath.Join(t.TempDir(), "summary.md")
			x.Channels.Getenv = func(k string) string { return map[string]string{"GITHUB_STEP_SUMMARY": summary}[k] }

			d := diffOf(update("Param", "new"))
			rep := x.newReport("0.284.40")
			var published *model.Diff // nil: the diff failed
			if tc.failed {
				rep.Error = "cdkd diff failed"
			} else {
				rep.Diff, rep.Digest = d, d.Digest()
				published = &d
			}
			assert.NilError(t, x.publish(context.Background(), rep, published, map[string]string{}))

			comments := srv.Comments(githubtest.DefaultOwner, githubtest.DefaultRepo, 7)
			assert.Equal(t, len(comments) == 1, tc.comment)
			var names []string
			for _, r := range srv.CheckRuns() {
				names = append(names, r.Name)
				assert.Equal(t, r.HeadSHA, headSHA)
				if r.Name == "cdkd diff" {
					assert.Equal(t, r.ExternalID != "", tc.vouches, "external id %q", r.ExternalID)
				}
			}
			slices.Sort(names)
			assert.DeepEqual(t, names, tc.checks)
			if tc.comment {
				c, ok := prcomment.Parse(comments[0].Body)
				assert.Assert(t, ok)
				assert.Equal(t, c.ChangeSet != "", !tc.failed, "a failed diff records no change set")
				assert.Equal(t, c.Header.Digest != "", !tc.failed)
			}
			assert.Assert(t, !strings.Contains(x.log.String(), "::error::"), x.log.String())
		})
	}
}
