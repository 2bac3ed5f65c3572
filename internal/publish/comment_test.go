package publish

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// commentRender is a diff comment whose visible report links the run.
func commentRender(h marker.Header, b reporters.Budget) prcomment.Comment {
	return prcomment.Comment{Header: h, Report: "### cdkd diff\n\nchanged " + secret + " (" + b.Channel + ")\n\n[run](" + h.Run + ")\n"}
}

func commentTarget(api *fakeAPI) *Comment {
	return &Comment{API: api, Owner: owner, Repo: repo, PR: 7, HeadSHA: headSHA, Identity: github.NewIdentity(nil, ""),
		Mode: github.ModeUpdate, Output: "comment-url"}
}

func diffPublication(run string) *Publication {
	return &Publication{Kind: "diff", Comment: &CommentFields{
		Header: marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: headSHA, Run: run}, Render: commentRender}}
}

func TestCommentIsSticky(t *testing.T) {
	h := newHarness(t)
	api := &fakeAPI{prHead: headSHA}
	// Someone else's comment carrying our header: never edited, warned of.
	spoof := github.Comment{ID: 1, Body: marker.Header{V: 1, Kind: prcomment.KindDiff}.String() + "\ntrust me", AuthorLogin: "mallory", HTMLURL: "u1"}
	api.comments = []github.Comment{spoof}
	ctx := context.Background()

	first := commentTarget(api)
	first.RunURL = "https://run/1"
	assert.NilError(t, h.pub.Publish(ctx, diffPublication("https://run/1"), first))
	assert.Equal(t, len(api.comments), 2)
	ours := api.comments[1]
	c, ok := prcomment.Parse(ours.Body)
	assert.Assert(t, ok)
	assert.Assert(t, c.Header.Extra["content"] != "", "the header carries the content hash")
	assert.Assert(t, is.Contains(c.Report, "changed *** (the PR comment)"))
	assert.Equal(t, h.outputs["comment-url"], ours.HTMLURL)
	assert.Assert(t, is.Contains(h.log.String(), "::warning::"+github.SpoofWarning("comment", "u1", "mallory", bot)))
	assert.Equal(t, api.comments[0].Body, spoof.Body)

	// The same report from another run: nothing is written.
	writes := len(api.writes)
	second := commentTarget(api)
	second.RunURL = "https://run/2"
	assert.NilError(t, h.pub.Publish(ctx, diffPublication("https://run/2"), second))
	assert.Equal(t, len(api.writes), writes, "unchanged content: no write")

	// A pull request that moved on keeps the newer run's comment.
	api.prHead = "fedcba9876543210"
	assert.NilError(t, h.pub.Publish(ctx, diffPublication("https://run/3"), commentTarget(api)))
	assert.Equal(t, len(api.writes), writes)
	assert.Assert(t, is.Contains(h.log.String(), "pull request #7 has moved on to fedcba9 since this run's commit 0123456"))
	assert.Assert(t, !strings.Contains(api.everything(), secret))
}

func TestCommentNeedsAnIdentity(t *testing.T) {
	h := newHarness(t)
	api := &fakeAPI{prHead: headSHA}
	target := commentTarget(api)
	target.Identity = github.NewIdentity(failingLogin{}, "")
	err := h.pub.Publish(context.Background(), diffPublication(""), target)
	assert.ErrorContains(t, err, "write pull request comment: read the token's identity")
	assert.Equal(t, len(api.writes), 0, "no guess at who we are")
	assert.Assert(t, is.Contains(h.log.String(), "::warning::the pull request comment was not posted (HTTP 502)"))
}

type failingLogin struct{}

func (failingLogin) AuthenticatedLogin(context.Context) (string, error) {
	return "", apiError(http.StatusBadGateway)
}

func TestDeploySection(t *testing.T) {
	review := func(api *fakeAPI) *github.Comment {
		body := prcomment.Comment{Header: marker.Header{V: 1, Kind: prcomment.KindDiff, SHA: headSHA, Digest: "v1:abc"}, Report: "### reviewed\n"}.String()
		c, err := api.CreateIssueComment(context.Background(), owner, repo, 7, body)
		assert.NilError(t, err)
		api.writes = nil
		return &c
	}
	deploy := &Publication{Kind: "deploy", Render: func(b reporters.Budget) string { return "deployed with " + secret + " in " + b.Channel }}
	target := func(api *fakeAPI, rv *github.Comment) *DeploySection {
		return &DeploySection{API: api, Owner: owner, Repo: repo, PR: 7, Review: rv, SHA: headSHA, Identity: github.NewIdentity(nil, ""), Output: "comment-url"}
	}

	t.Run("below the reviewed diff, header kept", func(t *testing.T) {
		h, api := newHarness(t), &fakeAPI{}
		rv := review(api)
		var seen github.Comment
		cr := &Publication{Kind: deploy.Kind, Render: deploy.Render, CheckRun: &CheckRunFields{Name: "cdkd deploy", HeadSHA: headSHA,
			ExternalID: func(w *Written) string { seen = w.Comment; return "x" }}}
		assert.NilError(t, h.pub.Publish(context.Background(), cr, target(api, rv), &CheckRun{API: api, Owner: owner, Repo: repo}))
		assert.DeepEqual(t, api.writes, []string{"edit comment " + itoa(rv.ID), "create check run"})
		c, ok := prcomment.Parse(api.comments[0].Body)
		assert.Assert(t, ok)
		assert.Equal(t, c.Header.Digest, "v1:abc")
		assert.Equal(t, c.Report, "### reviewed\n")
		assert.Equal(t, c.Deploy, "deployed with *** in the PR comment")
		assert.Equal(t, seen.ID, rv.ID, "the check run sees the section written")
		assert.Equal(t, h.outputs["comment-url"], rv.HTMLURL)
	})
	t.Run("review deleted since: a deploy comment of its own", func(t *testing.T) {
		h, api := newHarness(t), &fakeAPI{}
		rv := review(api)
		api.comments = nil
		assert.NilError(t, h.pub.Publish(context.Background(), deploy, target(api, rv)))
		assert.Equal(t, len(api.comments), 1)
		c, ok := prcomment.Parse(api.comments[0].Body)
		assert.Assert(t, ok)
		assert.Equal(t, c.Header.Kind, prcomment.KindDeploy)
		assert.Equal(t, c.Header.Digest, "", "no digest: never read as a review")
		assert.Assert(t, !strings.Contains(api.everything(), secret))
	})
	t.Run("no pull request: nothing", func(t *testing.T) {
		h, api := newHarness(t), &fakeAPI{}
		tg := target(api, nil)
		tg.PR = 0
		assert.NilError(t, h.pub.Publish(context.Background(), deploy, tg))
		assert.Equal(t, len(api.writes), 0)
	})
	t.Run("no permission: a warning", func(t *testing.T) {
		h, api := newHarness(t), &fakeAPI{}
		rv := review(api)
		api.fail = map[string]error{"edit comment " + itoa(rv.ID): apiError(http.StatusForbidden)}
		assert.NilError(t, h.pub.Publish(context.Background(), deploy, target(api, rv)))
		assert.Assert(t, is.Contains(h.log.String(), "::warning::cannot write the pull request comment (no pull-requests: write permission?): write the deploy outcome to pull request #7"))
	})
}
