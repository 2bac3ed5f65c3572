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
)

// driftIssue is a tracking issue publication whose state the test decides.
func driftIssue(state github.IssueState, text string) *Publication {
	return &Publication{Kind: "drift", Issue: &IssueFields{Kind: "drift", What: "drift tracking issue",
		Notices: map[string]string{github.ActionCreated: "opened drift tracking issue", github.ActionClosed: "no drift: closed"},
		Content: func(found *github.Issue) github.IssueContent {
			return github.IssueContent{State: state, Title: "cdkd drift: " + text, Header: marker.Header{V: 1, Kind: "drift"},
				Content: text + " " + secret + "\n", Footer: "\n<sub>run</sub>\n", Closing: "closing"}
		}}}
}

func TestIssueTarget(t *testing.T) {
	h := newHarness(t)
	api := &fakeAPI{}
	api.issues = []github.Issue{{Number: 1, State: "open", Body: marker.Header{V: 1, Kind: "drift"}.String() + "\nfake", HTMLURL: "i1", AuthorLogin: "mallory"}}
	target := &Issue{API: api, Owner: owner, Repo: repo, Labels: []string{"drift"}, Identity: github.NewIdentity(nil, ""), Output: "issue-url"}
	ctx := context.Background()

	assert.NilError(t, h.pub.Publish(ctx, driftIssue(github.IssueOpen, "3 drifted"), target))
	assert.Equal(t, len(api.issues), 2)
	ours := api.issues[0]
	assert.Equal(t, ours.Title, "cdkd drift: 3 drifted")
	assert.DeepEqual(t, ours.Labels, []string{"drift"})
	assert.Equal(t, h.outputs["issue-url"], ours.HTMLURL)
	assert.Assert(t, is.Contains(h.log.String(), "::notice::opened drift tracking issue "+ours.HTMLURL))
	assert.Assert(t, is.Contains(h.log.String(), "::warning::"+github.SpoofWarning("issue", "i1", "mallory", bot)))

	writes := len(api.writes)
	assert.NilError(t, h.pub.Publish(ctx, driftIssue(github.IssueOpen, "3 drifted"), target))
	assert.Equal(t, len(api.writes), writes, "nothing changed: nothing written")

	assert.NilError(t, h.pub.Publish(ctx, driftIssue(github.IssueClose, "clean"), target))
	assert.Equal(t, api.issues[0].State, "closed")
	assert.Assert(t, is.Contains(h.log.String(), "::notice::no drift: closed "+ours.HTMLURL))
	assert.Equal(t, api.issues[1].Body, "<!-- cdkd-action:{\"v\":1,\"kind\":\"drift\",\"label\":\"\"} -->\nfake", "the spoof is never edited")
	assert.Assert(t, !strings.Contains(api.everything(), secret))

	api.fail = map[string]error{"edit issue " + itoa(int64(ours.Number)): apiError(http.StatusForbidden)}
	assert.NilError(t, h.pub.Publish(ctx, driftIssue(github.IssueOpen, "back"), target))
	assert.Assert(t, is.Contains(h.log.String(), "::warning::cannot write the tracking issue (no issues: write permission?): update the drift tracking issue #"))
	assert.Equal(t, h.outputs["issue-url"], ours.HTMLURL, "the issue is still named")

	api.fail = map[string]error{"list issues": apiError(http.StatusInternalServerError)}
	err := h.pub.Publish(ctx, driftIssue(github.IssueOpen, "back"), target)
	assert.ErrorContains(t, err, "find the drift tracking issue")
	assert.Assert(t, is.Contains(h.log.String(), "::warning::the drift tracking issue was not posted (HTTP 500)"))
}

func TestDeployment(t *testing.T) {
	h := newHarness(t)
	api := &fakeAPI{}
	target := &Deployment{API: api, Owner: owner, Repo: repo, Environment: "prod", SHA: headSHA, RunURL: "https://run/1"}
	ctx := context.Background()
	target.Start(ctx, h.pub, h.pub.Redact("cdkd deploy of 0123456"))
	p := &Publication{Kind: "deploy", Deployment: &DeploymentFields{State: "success", EnvironmentURL: "https://app", Description: "Deployed " + secret}}
	assert.NilError(t, h.pub.Publish(ctx, p, target))
	assert.DeepEqual(t, api.deployments, []string{
		"create prod " + headSHA + " cdkd deploy of 0123456",
		"status 42 in_progress  https://run/1 cdkd deploy is running",
		"status 42 success https://app https://run/1 Deployed ***",
	})

	// A failed record is a warning: the deploy matters more.
	h, api = newHarness(t), &fakeAPI{fail: map[string]error{"deployment status failure": apiError(http.StatusBadGateway)}}
	target = &Deployment{API: api, Owner: owner, Repo: repo, Environment: "prod", SHA: headSHA}
	target.Start(ctx, h.pub, h.pub.Redact("d"))
	p.Deployment.State = "failure"
	assert.NilError(t, h.pub.Publish(ctx, p, target))
	assert.Assert(t, is.Contains(h.log.String(), "::warning::the deployment's failure status was not posted (HTTP 502)"))

	// No environment: no deployment, and nothing to finish.
	h, api = newHarness(t), &fakeAPI{}
	target = &Deployment{API: api, Owner: owner, Repo: repo}
	target.Start(ctx, h.pub, h.pub.Redact("d"))
	assert.NilError(t, h.pub.Publish(ctx, p, target))
	assert.Equal(t, len(api.writes), 0)

	h, api = newHarness(t), &fakeAPI{fail: map[string]error{"create deployment": apiError(http.StatusForbidden)}}
	target = &Deployment{API: api, Owner: owner, Repo: repo, Environment: "prod"}
	target.Start(ctx, h.pub, h.pub.Redact("d"))
	assert.NilError(t, h.pub.Publish(ctx, p, target))
	assert.Assert(t, is.Contains(h.log.String(), "::warning::the deployment to prod (no deployments: write permission?) was not posted (HTTP 403)"))
	assert.DeepEqual(t, api.writes, []string{"create deployment"})
}
