package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

func TestTargets(t *testing.T) {
	cur := &gate.Current{Diff: model.Diff{Stacks: []model.StackDiff{
		{Stack: "StackB", Region: "us-east-1"},
		{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "T", ChangeType: model.ChangeCreate}}},
		{Stack: "Stack-***", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "T", ChangeType: model.ChangeCreate}}},
	}}}
	summaries := []cdkd.StackSummary{{Stack: "StackA", Created: 1}, {Stack: "StackC", Updated: 2}}
	got := targets(cur, summaries)
	var names []string
	for _, tg := range got {
		names = append(names, tg.name+"/"+tg.region+"/"+map[bool]string{true: "changed", false: "quiet"}[tg.changed])
	}
	assert.DeepEqual(t, names, []string{"StackA/us-east-1/changed", "StackB/us-east-1/quiet", "StackC//changed"})
	assert.Equal(t, got[0].summary.Created, 1)
	assert.Assert(t, got[1].summary == nil)
	assert.Equal(t, got[2].summary.Updated, 2)
	assert.Assert(t, is.Len(targets(nil, nil), 0))
}

func TestLockMessage(t *testing.T) {
	l := cdkd.LockInfo{Stack: "StackA", Region: "us-east-1", Owner: "ci-job-42@runner-7", Operation: "deploy", ExpiresIn: "12m49s"}
	assert.Equal(t, lockMessage(l), "Stack StackA (us-east-1) is locked by ci-job-42@runner-7 (operation: deploy); the lock expires in 12m49s. "+
		"Nothing was deployed. If no job holds the lock any more, release it with `cdkd force-unlock StackA --stack-region us-east-1`.")
	assert.Equal(t, lockMessage(cdkd.LockInfo{Stack: "S", Region: "eu-west-1"}),
		"Stack S (eu-west-1) is locked. Nothing was deployed. If no job holds the lock any more, release it with `cdkd force-unlock S --stack-region eu-west-1`.")
}

func TestEnvironmentURL(t *testing.T) {
	r := &Env{}
	r.runner, r.set = workflow.New(io.Discard, func(string) string { return "" }), secrets.NewSet()
	d := &deployRun{r: r, outputs: map[string]map[string]string{
		"Api": {"Url": "https://api.example.com", "Secret": "https://x/***"},
		"Web": {"Url": "https://www.example.com"},
	}}
	for _, tc := range []struct{ input, want string }{
		{"Web.Url", "https://www.example.com"},
		{"Url", "https://api.example.com"}, // the first stack by name
		{"Api.Secret", ""},                 // masked: no URL
		{"Nope", ""},
		{"", ""},
	} {
		r.cfg.EnvironmentURLOutput = tc.input
		assert.Equal(t, d.environmentURL(), tc.want, tc.input)
	}
}

func TestDeployConclusion(t *testing.T) {
	assert.Equal(t, deployConclusion(reporters.OutcomeDeployed), "success")
	assert.Equal(t, deployConclusion(reporters.OutcomeCancelled), "cancelled")
	for _, o := range []reporters.DeployOutcome{reporters.OutcomeRefused, reporters.OutcomeFailed, reporters.OutcomePartial, reporters.OutcomeLocked} {
		assert.Equal(t, deployConclusion(o), "failure")
	}
}

func TestHumanDuration(t *testing.T) {
	assert.Equal(t, humanDuration(29*time.Millisecond), "29 ms")
	assert.Equal(t, humanDuration(1500*time.Millisecond), "1.5 s")
}

// timeout-minutes stops a hung deploy as a cancellation does (SIGINT, so
// cdkd can release its lock) but reports it as "timeout", not "cancelled":
// the job was not cancelled. (In minutes as an input; the run takes any
// duration.)
func TestDeployTimeout(t *testing.T) {
	stub := cdkdtest.New(t,
		cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, Stdout: "[]"},
		cdkdtest.Invocation{Args: []string{"deploy", "--all", "-y"}, Stdout: "Deploying stack: StackA\n",
			StderrLines: []cdkdtest.Line{{Text: "hung", DelayMs: 120000}},
			OnSigint:    &cdkdtest.Sigint{Stdout: "Interrupted: released the lock\n", Exit: 1}},
	)
	for _, kv := range stub.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	getenv := func(string) string { return "" }
	set := secrets.NewSet()
	r := &Env{app: &App{Getenv: getenv}, local: true}
	r.set, r.out, r.outputs = set, secrets.NewLineWriter(&out, set), map[string]string{}
	r.runner, r.raw = workflow.New(r.out, getenv), workflow.New(&out, getenv)
	r.cfg = config.Config{Command: config.CommandDeploy, All: true, CdkdPath: stub.Path, WorkingDirectory: t.TempDir(),
		StatePrefix: "cdkd", DestructiveLabel: "cdkd:allow-destructive", Timeout: 300 * time.Millisecond}

	code := r.finish(deployCommand{}.Run(context.Background(), r))
	r.out.Close()
	assert.Equal(t, code, ExitFailure, out.String())
	assert.Equal(t, r.outputs["failure-reason"], "timeout")
	assert.Equal(t, r.outputs["deployed"], "false")
	assert.Assert(t, is.Contains(out.String(), "ran longer than timeout-minutes (300ms) and was interrupted (SIGINT)"))
	assert.Assert(t, is.Contains(out.String(), "said it released its lock"), "cdkd said so, and only then is it claimed")
	stub.AssertAllUsed(t)
}

// checkRunsAPI lists fixed check runs; every other method is unused here.
type checkRunsAPI struct {
	github.API
	runs []github.CheckRunInfo
	err  error
	ref  string
	name string
}

func (a *checkRunsAPI) ListCheckRunsForRef(_ context.Context, _, _, ref, name string) ([]github.CheckRunInfo, error) {
	a.ref, a.name = ref, name
	return a.runs, a.err
}

// The review's record is the newest "cdkd diff" check run of our app on the
// reviewed commit.
func TestReviewRecord(t *testing.T) {
	const (
		sha    = "8888888888888888888888888888888888888888"
		digest = "v1:0123beef4567"
		other  = "v1:9999999999"
	)
	marker := gate.DiffMarker(digest, 41, "abc")
	checkRun := func(id int64, app, externalID string) github.CheckRunInfo {
		return github.CheckRunInfo{ID: id, Name: "cdkd diff (prod)", HeadSHA: sha, ExternalID: externalID, AppSlug: app, HTMLURL: fmt.Sprintf("https://github.com/o/r/runs/%d", id)}
	}
	tests := []struct {
		name    string
		bot     string
		app     string
		secret  string
		runs    []github.CheckRunInfo
		err     error
		want    *gate.Record
		warning string
		wantErr string
	}{
		{name: "none: check-run was false", runs: nil},
		{name: "the newest records the review", runs: []github.CheckRunInfo{checkRun(1, "github-actions", gate.DiffMarker(other, 42, "def")), checkRun(2, "github-actions", marker)},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", URL: "https://github.com/o/r/runs/2"}},
		{name: "the newest records another digest", runs: []github.CheckRunInfo{checkRun(2, "github-actions", marker), checkRun(3, "github-actions", gate.DiffMarker(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: other, CommentID: 42, ReportHash: "def", URL: "https://github.com/o/r/runs/3"}},
		{name: "the newest records none: a failed diff", runs: []github.CheckRunInfo{checkRun(2, "github-actions", marker), checkRun(3, "github-actions", "")},
			want: &gate.Record{Name: "cdkd diff (prod)", URL: "https://github.com/o/r/runs/3"}},
		{name: "another app's run is no record", runs: []github.CheckRunInfo{checkRun(2, "github-actions", marker), checkRun(3, "mallory-app", gate.DiffMarker(other, 42, "def"))},
			want:    &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", URL: "https://github.com/o/r/runs/2"},
			warning: "ignored check run https://github.com/o/r/runs/3: it is named \"cdkd diff (prod)\" but was created by the app mallory-app, not github-actions"},
		{name: "the trusted app named by the input", app: "deployer", runs: []github.CheckRunInfo{checkRun(2, "deployer", marker), checkRun(3, "github-actions", gate.DiffMarker(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", URL: "https://github.com/o/r/runs/2"}, warning: "created by the app github-actions, not deployer (input trusted-app)"},
		{name: "a run with no app never vouches", runs: []github.CheckRunInfo{checkRun(2, "github-actions", marker), checkRun(3, "", gate.DiffMarker(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", URL: "https://github.com/o/r/runs/2"}, warning: "was created by no app, not github-actions"},
		{name: "whatever the identity", bot: "deploy-user", runs: []github.CheckRunInfo{checkRun(2, "github-actions", marker), checkRun(3, "some-app", gate.DiffMarker(other, 42, "def"))},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, CommentID: 41, ReportHash: "abc", URL: "https://github.com/o/r/runs/2"}, warning: "created by the app some-app"},
		{name: "an older cdkd-action's record names no comment", runs: []github.CheckRunInfo{checkRun(2, "github-actions", "cdkd-action:v1:diff:"+digest)},
			want: &gate.Record{Name: "cdkd diff (prod)", Digest: digest, URL: "https://github.com/o/r/runs/2"}},
		{name: "the API fails", err: errors.New("502 Bad Gateway"), wantErr: "read the diff check runs on 8888888 to verify the review: 502 Bad Gateway"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			getenv := func(string) string { return "" }
			set := secrets.NewSet()
			if tc.secret != "" {
				set.Add(tc.secret, "test")
			}
			api := &checkRunsAPI{runs: tc.runs, err: tc.err}
			bot := tc.bot
			if bot == "" {
				bot = github.ActionsBotLogin
			}
			r := &Env{cfg: config.Config{Label: "prod", BotLogin: bot, TrustedApp: tc.app}}
			r.api, r.set = api, set
			r.gh.Owner, r.gh.Repo = "o", "r"
			r.runner = workflow.New(&out, getenv)
			got, err := (&prReviews{r: r}).record(context.Background(), sha)
			if tc.wantErr != "" {
				assert.Error(t, err, tc.wantErr)
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, api.ref, sha)
			assert.Equal(t, api.name, "cdkd diff (prod)")
			assert.DeepEqual(t, got, tc.want)
			if tc.warning != "" {
				assert.Assert(t, is.Contains(out.String(), tc.warning))
			} else {
				assert.Assert(t, !strings.Contains(out.String(), "warning"), out.String())
			}
		})
	}
}

// prsAPI lists fixed pull requests for a commit.
type prsAPI struct {
	github.API
	prs []github.PullRequest
}

func (a prsAPI) PullRequestsForCommit(context.Context, string, string, string) ([]github.PullRequest, error) {
	return a.prs, nil
}

// The pull request a pushed commit came from is one merged into the pushed
// branch: another branch's, sharing the commit, lends nothing.
func TestFindPR(t *testing.T) {
	const sha = "9999999999999999999999999999999999999999"
	release := github.PullRequest{Number: 6, HeadSHA: sha, BaseRef: "release", MergeCommitSHA: "a1", Merged: true}
	ffMain := github.PullRequest{Number: 8, HeadSHA: sha, BaseRef: "main", MergeCommitSHA: "b2", Merged: true}
	mergedMain := github.PullRequest{Number: 9, HeadSHA: "h9", BaseRef: "main", MergeCommitSHA: sha, Merged: true}
	open := github.PullRequest{Number: 10, HeadSHA: sha, BaseRef: "main"}
	tests := []struct {
		name, ref, event string
		prs              []github.PullRequest
		want             int
		note             string
		ambiguous        []int
	}{
		{name: "merge commit", ref: "refs/heads/main", event: "push", prs: []github.PullRequest{ffMain, mergedMain}, want: 9},
		{name: "fast-forward, another branch's listed first", ref: "refs/heads/main", event: "push", prs: []github.PullRequest{release, ffMain}, want: 8},
		{name: "pushed to the other branch", ref: "refs/heads/release", event: "push", prs: []github.PullRequest{release, ffMain}, want: 6},
		{name: "only another branch's", ref: "refs/heads/main", event: "push", prs: []github.PullRequest{release, open},
			note: "no pull request merged into main has it as its merge commit or head: a direct push?; pull request #6 holds it but was merged into release, not main"},
		{name: "dispatch on main", ref: "refs/heads/main", event: "workflow_dispatch", prs: []github.PullRequest{mergedMain}, want: 9},
		{name: "dispatch, nothing merged", ref: "refs/heads/main", event: "workflow_dispatch", prs: []github.PullRequest{open},
			note: "the run was started by workflow_dispatch, and no pull request merged into main has it as its merge commit or head"},
		{name: "two merged pull requests share the head", ref: "refs/heads/main", event: "push", prs: []github.PullRequest{ffMain, {Number: 12, HeadSHA: sha, BaseRef: "main", Merged: true}},
			ambiguous: []int{8, 12}, note: "several pull requests hold it"},
		{name: "a tag: merge commit only", ref: "refs/tags/v1", event: "push", prs: []github.PullRequest{ffMain, mergedMain}, want: 9},
		{name: "a tag: no fast-forward guess", ref: "refs/tags/v1", event: "push", prs: []github.PullRequest{release, ffMain},
			note: "no merged pull request has it as its merge commit (refs/tags/v1 is no branch, so a fast-forward merge is not looked for): a direct push?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Env{}
			r.api = prsAPI{prs: tc.prs}
			r.gh.Owner, r.gh.Repo, r.gh.SHA, r.gh.Ref, r.gh.EventName = "o", "r", sha, tc.ref, tc.event
			s := &prReviews{r: r}
			got, note, err := s.findPR(context.Background())
			assert.NilError(t, err)
			assert.Equal(t, got, tc.want)
			assert.Equal(t, note, tc.note)
			assert.DeepEqual(t, s.ambiguous, tc.ambiguous)
		})
	}
}
