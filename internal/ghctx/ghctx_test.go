package ghctx

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

func TestLoadPullRequestEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	assert.NilError(t, os.WriteFile(path, []byte(`{
	  "action": "synchronize", "number": 7,
	  "pull_request": {"number": 7, "head": {"sha": "abc123", "repo": {"full_name": "someone/fork"}},
	    "base": {"ref": "main", "repo": {"full_name": "acme/infra"}},
	    "labels": [{"name": "cdkd:allow-destructive"}]}
	}`), 0o600))
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/infra", "GITHUB_SHA": "merge999",
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path, "GITHUB_RUN_ID": "42",
	}
	c, err := Load(func(k string) string { return env[k] })
	assert.NilError(t, err)
	assert.Equal(t, c.Owner, "acme")
	assert.Equal(t, c.Repo, "infra")
	assert.Equal(t, c.HeadSHA, "abc123", "a PR's head, not the merge commit GITHUB_SHA")
	assert.Equal(t, c.SHA, "merge999")
	assert.Equal(t, c.RunURL, "https://github.com/acme/infra/actions/runs/42")
	assert.Equal(t, c.PR.Number, 7)
	assert.Equal(t, c.PR.Fork, true)
	assert.Equal(t, c.PR.HeadRepo+" → "+c.PR.BaseRepo, "someone/fork → acme/infra", "the same fields the API fills")
	assert.DeepEqual(t, c.PR.Labels, []string{"cdkd:allow-destructive"})
}

func TestLoadPushEventHasNoPR(t *testing.T) {
	path := filepath.Join(t.TempDir(), "event.json")
	assert.NilError(t, os.WriteFile(path, []byte(`{"ref":"refs/heads/main","after":"def"}`), 0o600))
	env := map[string]string{"GITHUB_REPOSITORY": "acme/infra", "GITHUB_SHA": "def", "GITHUB_EVENT_PATH": path, "GITHUB_REF": "refs/heads/release/v2"}
	c, err := Load(func(k string) string { return env[k] })
	assert.NilError(t, err)
	assert.Assert(t, c.PR == nil)
	assert.Equal(t, c.HeadSHA, "def")
	assert.Equal(t, c.Ref, "refs/heads/release/v2")
	assert.Equal(t, c.Branch(), "release/v2")
}

func TestBranch(t *testing.T) {
	for ref, want := range map[string]string{
		"refs/heads/main":   "main",
		"refs/tags/v1.2.0":  "",
		"refs/pull/7/merge": "",
		"main":              "",
		"":                  "",
	} {
		assert.Equal(t, Context{Ref: ref}.Branch(), want, ref)
	}
}

func TestBadRepository(t *testing.T) {
	_, err := Load(func(k string) string {
		if k == "GITHUB_REPOSITORY" {
			return "noslash"
		}
		return ""
	})
	assert.ErrorContains(t, err, `GITHUB_REPOSITORY "noslash" is not owner/name`)
}

// A workflow_run job reviews the commit the triggering run ran on, named
// by GitHub's event: its head, branch and repository (a fork's), not
// GITHUB_SHA, which is the default branch's head there.
func TestLoadWorkflowRunOfAFork(t *testing.T) {
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo-org/octo-repo", "GITHUB_SHA": "defaultbranchhead",
		"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": "testdata/workflow_run-fork.json",
	}
	c, err := Load(func(k string) string { return env[k] })
	assert.NilError(t, err)
	assert.DeepEqual(t, c.WorkflowRun, &WorkflowRun{Event: "pull_request", HeadSHA: "f00dfacef00dfacef00dfacef00dfacef00dface",
		HeadBranch: "fix-queue", HeadOwner: "someone", HeadRepo: "someone/octo-repo"})
	assert.Equal(t, c.HeadSHA, "f00dfacef00dfacef00dfacef00dfacef00dface")
	assert.Assert(t, c.PR == nil, "the pull request is looked up through the API, not read from the payload")

	// The same payload under another event name is not a workflow_run.
	env["GITHUB_EVENT_NAME"] = "push"
	c, err = Load(func(k string) string { return env[k] })
	assert.NilError(t, err)
	assert.Assert(t, c.WorkflowRun == nil)
	assert.Equal(t, c.HeadSHA, "defaultbranchhead")
}

// A merge_group job checks the queue's group: GitHub's real payload (from
// @octokit/webhooks-examples) names its head, its parent and the branch it
// merges into, and in its ref the pull request it adds; no pull request
// object.
func TestLoadMergeGroup(t *testing.T) {
	env := map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "octo-org/octo-repo", "GITHUB_SHA": "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",
		"GITHUB_EVENT_NAME": "merge_group", "GITHUB_EVENT_PATH": "../../cmd/cdkd-action/testdata/events/merge_group.checks_requested.json",
	}
	c, err := Load(func(k string) string { return env[k] })
	assert.NilError(t, err)
	assert.DeepEqual(t, c.MergeGroup, &MergeGroup{HeadSHA: "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",
		HeadRef: "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64",
		BaseSHA: "380387fbc80638b734a49e1be1c4dfec1c01b33c", BaseRef: "refs/heads/main"})
	assert.Equal(t, c.MergeGroup.BaseBranch(), "main")
	assert.Equal(t, c.MergeGroup.QueuedPR(), 104)
	assert.Equal(t, c.HeadSHA, "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d")
	assert.Assert(t, c.PR == nil)

	env["GITHUB_EVENT_NAME"] = "push"
	c, err = Load(func(k string) string { return env[k] })
	assert.NilError(t, err)
	assert.Assert(t, c.MergeGroup == nil, "only a merge_group event is a merge group")
}

// A merge queue's ref names its branch and pull request; anything else
// in that namespace, or out of it, names none.
func TestQueuedPR(t *testing.T) {
	const sha = "929f8209d40f77f4abc622a499c93a83babdbe64"
	for ref, want := range map[string]QueueRef{
		"refs/heads/gh-readonly-queue/main/pr-104-" + sha:     {Branch: "main", PR: 104},
		"refs/heads/gh-readonly-queue/release/v2/pr-7-" + sha: {Branch: "release/v2", PR: 7},
		"refs/heads/gh-readonly-queue/main/pr-x7-" + sha:      {},
		"refs/heads/gh-readonly-queue/main/pr--" + sha:        {},
		"refs/heads/gh-readonly-queue/main/pr-+7-" + sha:      {},
		"refs/heads/gh-readonly-queue/main/pr-0-" + sha:       {},
		"refs/heads/gh-readonly-queue/main/pr-7-not-a-sha":    {},
		"refs/heads/gh-readonly-queue/main/pr-7-":             {},
		"refs/heads/gh-readonly-queue/pr-7-" + sha:            {},
		"refs/heads/feature/pr-7-" + sha:                      {},
		"refs/heads/gh-readonly-queue/main/pr-7":              {},
		"":                                                    {},
	} {
		got, ok := ParseQueueRef(ref)
		assert.Equal(t, got, want, ref)
		assert.Equal(t, ok, want.PR != 0, ref)
		assert.Equal(t, MergeGroup{HeadRef: ref}.QueuedPR(), want.PR, ref)
	}
	assert.Equal(t, MergeGroup{BaseRef: "refs/tags/v1"}.BaseBranch(), "")
}
