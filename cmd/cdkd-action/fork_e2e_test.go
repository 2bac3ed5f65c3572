package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
)

// A fork's pull request is diffed by a workflow_run job from an artifact
// its author controls (docs/forks.md).

// storedNoEcho is the NoEcho value the state holds (the assembly-v1
// default); cdkd 0.284.40 prints it as the diff's oldValue.
const storedNoEcho = "hunter2-noecho-v1"

// forkAssembly is assembly-v1 as a fork would upload it: NoEcho dropped
// from DbPassword and its default changed, so that, were positions taken
// from it, production's stored value would print.
func forkAssembly(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pr.out")
	copyDir(t, "../../testdata/cdkd-samples/assembly-v1", dir)
	path := filepath.Join(dir, "StackA.template.json")
	var tpl map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, path)), &tpl))
	p := tpl["Parameters"].(map[string]any)["DbPassword"].(map[string]any)
	delete(p, "NoEcho")
	p["Default"] = "hunter2-noecho-v2"
	b, err := json.Marshal(tpl)
	assert.NilError(t, err)
	writeFile(t, path, string(b))
	// An artifact can name any pull request it likes: nothing reads it.
	writeFile(t, filepath.Join(dir, "pr-number"), "8\n")
	return dir
}

// forkWorkspace is a workflow_run job: the event is GitHub's workflow_run
// payload for a fork's pull_request run (head someone:fix-queue at
// headSHA), and the fake holds that pull request (#7), a decoy from the
// base repository's branch of the same name (#8), and a closed one from
// the same fork branch.
func forkWorkspace(t *testing.T) *workspace {
	t.Helper()
	w := newWorkspace(t)
	w.gh.AddPullRequest(githubtest.PR{Number: 8, HeadSHA: "2222222222222222222222222222222222222222", HeadRef: "fix-queue", State: "open"})
	w.gh.AddPullRequest(githubtest.PR{Number: 9, HeadSHA: headSHA, HeadRef: "fix-queue", HeadOwner: "someone", HeadRepo: "someone/octo-repo", State: "closed"})
	w.gh.AddPullRequest(githubtest.PR{Number: 10, HeadSHA: headSHA, HeadRef: "fix-queue", HeadOwner: "someone", HeadRepo: "someone/octo-repo", State: "open"})
	event := filepath.Join(w.dir, "workflow_run.json")
	writeFile(t, event, readFile(t, "testdata/workflow_run-fork.json"))
	w.vars["GITHUB_EVENT_NAME"] = "workflow_run"
	w.vars["GITHUB_EVENT_PATH"] = event
	return w
}

// forkDiff is cdkd's diff of the fork's assembly (the real diff-v2 JSON,
// whose oldValue is the stored NoEcho value).
func forkDiff(t *testing.T, app string) cdkdtest.Invocation {
	inv := diffInvocation(t, "../../testdata/fixtures/diff-v2.json")
	inv.Args = append(inv.Args, "--app", app)
	return inv
}

func TestForkDiffTakesSecretPositionsFromTheBase(t *testing.T) {
	w := forkWorkspace(t)
	w.secret(storedNoEcho)
	pr := forkAssembly(t)
	w.stub(forkDiff(t, pr))

	// Without the base branch's assembly, the pull request's would decide
	// what is secret: refused, nothing posted.
	res := w.run(map[string]string{"all": "true", "app": pr})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "input base-app:"))
	assert.Assert(t, is.Len(w.gh.CheckRuns(), 0))

	res = w.run(map[string]string{"all": "true", "app": pr, "base-app": abs(t, "../../testdata/cdkd-samples/assembly-v1")})
	assert.Equal(t, res.code, 0, res.stdout)
	// The review goes where GitHub's event and listing say: the fork's
	// open pull request whose head is the run's commit, not the artifact's.
	comments := w.gh.Comments(owner, repo, 10)
	assert.Assert(t, is.Len(comments, 1), res.stdout)
	assert.Assert(t, is.Contains(comments[0].Body, "NoEchoParam2FCCC8BD"))
	assert.Assert(t, !strings.Contains(comments[0].Body, storedNoEcho))
	for _, other := range []int{7, 8, 9} {
		assert.Assert(t, is.Len(w.gh.Comments(owner, repo, other), 0), "pull request #%d", other)
	}
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, runs[0].HeadSHA, headSHA, "the check run is on the pull request's head, not GITHUB_SHA")
}

// The control: a run that takes positions from the fork's assembly prints
// the stored value. It is why base-app exists.
func TestForkAssemblyAloneWouldPrintTheStoredValue(t *testing.T) {
	w := newWorkspace(t)
	pr := forkAssembly(t)
	w.stub(forkDiff(t, pr))
	res := w.run(map[string]string{"all": "true", "app": pr})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.summary, storedNoEcho))
}

// With base-app, app must be a synthesized assembly: a command would run
// the pull request's code.
func TestBaseAppNeedsAnAssemblyAsApp(t *testing.T) {
	w := forkWorkspace(t)
	res := w.run(map[string]string{"all": "true", "app": "npx ts-node bin/app.ts", "base-app": abs(t, "../../testdata/cdkd-samples/assembly-v1")})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "input app: with base-app set, app is the pull request's cloud assembly"))
	res = w.run(map[string]string{"all": "true", "app": forkAssembly(t), "base-app": os.TempDir()})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "input base-app: expected the base branch's synthesized cloud assembly"))
}
