package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// hung is a cdkd call that never finishes on its own; SIGINT ends it (no
// handler: it dies of the signal, as cdkd's read-only commands do).
func hung(args ...string) cdkdtest.Invocation {
	return cdkdtest.Invocation{Args: args, StderrLines: []cdkdtest.Line{{Text: "working"}}, DelayMs: 10 * 60 * 1000}
}

// timeout-minutes bounds every cdkd call of every command, not only
// deploy: a hung call is failure-reason timeout, exit 3, with what it means
// for the state lock, on the summary and the check run.
func TestTimeoutBoundsEveryCommand(t *testing.T) {
	diffArgs := []string{"diff", "--all", "--json", "--recursive"}
	tests := []struct {
		name    string
		setup   func(w *workspace)
		invs    func(t *testing.T) []cdkdtest.Invocation
		inputs  map[string]string
		check   string // the check run's name prefix
		lock    string
		noClaim bool
	}{
		{
			name:   "diff",
			invs:   func(*testing.T) []cdkdtest.Invocation { return []cdkdtest.Invocation{hung(diffArgs...)} },
			inputs: map[string]string{"all": "true"},
			check:  "cdkd diff",
			lock:   "cdkd diff only reads state and takes no lock",
		},
		{
			name:   "diff with a hung --version",
			invs:   func(*testing.T) []cdkdtest.Invocation { return []cdkdtest.Invocation{hung("--version")} },
			inputs: map[string]string{"all": "true"},
			check:  "cdkd diff",
			lock:   "takes no lock",
		},
		{
			name:   "drift",
			setup:  func(w *workspace) { w.vars["INPUT_COMMAND"] = "drift" },
			invs:   func(*testing.T) []cdkdtest.Invocation { return []cdkdtest.Invocation{hung("drift", "--all", "--json")} },
			inputs: map[string]string{"all": "true", "command": "drift"},
			check:  "cdkd drift",
			lock:   "cdkd drift only reads state and takes no lock",
		},
		{
			name:   "the deploy gate's own diff",
			setup:  func(w *workspace) { w.onPush() },
			invs:   func(*testing.T) []cdkdtest.Invocation { return []cdkdtest.Invocation{hung(diffArgs...)} },
			inputs: map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false"},
			check:  "cdkd deploy",
			lock:   "takes no lock",
		},
		{
			name:  "deploy that ignores SIGINT",
			setup: func(w *workspace) { w.onPush() },
			invs: func(t *testing.T) []cdkdtest.Invocation {
				return []cdkdtest.Invocation{
					gateDiff(t, "testdata/deploy/diff-safe.json"),
					{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, StderrLines: []cdkdtest.Line{{Text: "Deploying stack: StackA"}}, DelayMs: 10 * 60 * 1000,
						OnSigint: &cdkdtest.Sigint{Ignore: true}},
				}
			},
			inputs:  map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false"},
			check:   "cdkd deploy",
			lock:    "cdkd force-unlock StackA --stack-region us-east-1",
			noClaim: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			if tc.setup != nil {
				tc.setup(w)
			}
			w.stub(tc.invs(t)...)
			in := tc.inputs
			in["timeout-minutes"] = "0.01" // 600 ms
			res := w.run(in)
			assert.Equal(t, res.code, 3, res.stdout)
			assert.Equal(t, res.outputs["failure-reason"], "timeout")
			assert.Assert(t, is.Contains(res.summary, "ran longer than"))
			assert.Assert(t, is.Contains(res.stdout, tc.lock))
			assert.Assert(t, !strings.Contains(res.stdout, "released its lock"), "nobody said so")
			if tc.noClaim {
				assert.Assert(t, is.Contains(res.summary, "may still be held"))
				assert.Assert(t, is.Contains(res.summary, "SIGKILL"))
				assert.Assert(t, is.Contains(res.summary, tc.lock))
			}
			var found bool
			for _, cr := range w.gh.CheckRuns() {
				if strings.HasPrefix(cr.Name, tc.check) {
					found = true
					assert.Assert(t, cr.Conclusion != "success", "a timed-out run is never green")
				}
			}
			assert.Assert(t, found || tc.check == "", "no %s check run", tc.check)
		})
	}
}

// A cdkd killed by a signal is named: never "exit -1".
func TestKilledCdkdIsNamed(t *testing.T) {
	t.Run("diff crashes with SIGSEGV", func(t *testing.T) {
		w := newWorkspace(t)
		w.stub(cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, Stderr: "Synthesizing CDK app...\n", Signal: "SIGSEGV"})
		res := w.run(map[string]string{"all": "true"})
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "cdkd-failed")
		for _, text := range []string{res.stdout, res.summary, w.gh.CheckRuns()[0].Output.Summary} {
			assert.Assert(t, is.Contains(text, "SIGSEGV"))
			// "exited -1" or "exit -1", not any "-1": the stand-in's temporary
			// path may hold one.
			assert.Assert(t, !strings.Contains(text, "exit -1") && !strings.Contains(text, "exited -1"), "the exit code of a signal is not -1: %s", text)
		}
	})
	t.Run("deploy is OOM-killed", func(t *testing.T) {
		w := newWorkspace(t)
		w.onPush()
		w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"),
			cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stdout: "Deploying stack: StackA\n", Signal: "SIGKILL"})
		res := w.run(map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false"})
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "deploy-failed")
		assert.Equal(t, res.outputs["deployed"], "false")
		for _, text := range []string{res.summary, deployCheck(t, w.gh).Output.Summary} {
			assert.Assert(t, is.Contains(text, "killed by SIGKILL"))
			assert.Assert(t, is.Contains(text, "may still be held"))
			assert.Assert(t, is.Contains(text, "cdkd force-unlock StackA --stack-region us-east-1"))
			assert.Assert(t, !strings.Contains(text, "exit -1"))
		}
	})
}

// A failed deploy's message says "cdkd deploy failed" once.
func TestDeployFailureSaysItOnce(t *testing.T) {
	w := newWorkspace(t)
	w.onPush()
	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"),
		cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stderr: "Error: cdkd deploy failed: 1 node(s) failed\n", Exit: 1},
		fileInvocation(t, "events-StackA.json", "events", "StackA", "--json"),
		fileInvocation(t, "events-StackA-run-partial.json", "events", "StackA", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
		fileInvocation(t, "state-StackA.json", "state", "show", "StackA", "--json"),
		fileInvocation(t, "events-StackB.json", "events", "StackB", "--json"),
		fileInvocation(t, "state-StackB.json", "state", "show", "StackB", "--json"),
	)
	res := w.run(map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false"})
	assert.Equal(t, res.code, 3, res.stdout)
	for _, text := range []string{res.stdout, res.summary} {
		assert.Assert(t, !strings.Contains(strings.ToLower(text), "cdkd deploy failed: cdkd deploy failed"), text)
		assert.Assert(t, !strings.Contains(strings.ToLower(text), "failed: error: cdkd deploy failed"), text)
	}
}

// A write to GitHub that fails is said in the log, with its status and
// what was not posted, on every path: also when cdkd failed or the gate
// refused, where the step fails for another reason.
func TestFailedWritesAreNeverSilent(t *testing.T) {
	notFound := func(op string) githubtest.Fault {
		return githubtest.Fault{Times: 100, Operation: op, Status: 404, Body: `{"message":"Not Found"}`}
	}
	t.Run("diff: cdkd failed", func(t *testing.T) {
		w := newWorkspace(t)
		w.stub(cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, Stderr: "Error: Region is missing\n", Exit: 1})
		w.gh.Inject(notFound(githubtest.OpCreateIssueComment))
		w.gh.Inject(notFound(githubtest.OpCreateCheckRun))
		res := w.run(map[string]string{"all": "true"})
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "cdkd-failed")
		assert.Assert(t, is.Contains(res.stdout, "::warning::the pull request comment was not posted (HTTP 404)"))
		assert.Assert(t, is.Contains(res.stdout, "::warning::the cdkd diff check run was not posted (HTTP 404)"))
	})
	t.Run("deploy: the gate refused", func(t *testing.T) {
		w := newWorkspace(t)
		w.onPush()
		w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"))
		w.gh.Inject(notFound(githubtest.OpCreateCheckRun))
		res := w.run(map[string]string{"command": "deploy", "all": "true"})
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
		assert.Assert(t, is.Contains(res.stdout, "::warning::the cdkd deploy check run was not posted (HTTP 404)"))
	})
	t.Run("drift: cdkd failed", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.stub(stderrFile(t, detect(t, "", 1), "crash.stderr"))
		w.gh.Inject(notFound(githubtest.OpCreateCheckRun))
		res := w.run(withInputs(all))
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Assert(t, is.Contains(res.stdout, "::warning::the cdkd drift check run was not posted (HTTP 404)"))
	})
}

// A cancelled deploy's last report has its own bounded time, and when a
// stalled GitHub uses it up, the log says what was not posted and why.
func TestCancelledDeployReportRunsOutLoudly(t *testing.T) {
	w := newWorkspace(t)
	w.onPush()
	w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"),
		cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stdout: "Deploying stack: StackA\n", DelayMs: 10 * 60 * 1000,
			OnSigint: &cdkdtest.Sigint{Stderr: "Interrupted\n", Exit: 130}})
	w.gh.Inject(githubtest.Fault{Times: 100, Operation: githubtest.OpCreateCheckRun, Delay: time.Minute, Status: 201})
	p := w.start(map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false"})
	p.waitFor(t, "Deploying stack: StackA", 60*time.Second)
	assert.NilError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	res := p.wait(t, 20*time.Second)
	assert.Equal(t, res.outputs["failure-reason"], "cancelled")
	assert.Assert(t, is.Contains(res.stdout, "::warning::the cdkd deploy check run was not posted (no answer)"))
	assert.Assert(t, is.Contains(res.stdout, "the 4s given to the report after the cancellation ran out"))
	assert.Assert(t, is.Contains(res.summary, "Deploy cancelled"), "the summary is written whatever GitHub does")
	assert.Assert(t, is.Contains(res.summary, "did not say it released the lock of StackA"))
}

// A change type a later cdkd adds is shown as it is and counted as a
// change; the diff does not fail on it, and the deploy gate treats it as
// destructive: allow-destroy-types does not approve it.
func TestUnknownChangeType(t *testing.T) {
	t.Run("diff", func(t *testing.T) {
		w := newWorkspace(t)
		w.stub(cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, StdoutFile: abs(t, "testdata/deploy/diff-import.json")})
		res := w.run(map[string]string{"all": "true"})
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["has-changes"], "true")
		assert.Assert(t, is.Contains(res.summary, "IMPORT"))
		assert.Assert(t, is.Contains(res.summary, "LegacyBucket4F2C1A7E"))
		assert.Assert(t, is.Contains(res.summary, "1 of a change type cdkd-action does not know"))
		assert.Assert(t, is.Contains(res.summary, "> ⚠️ **Destructive changes:** 1 of an unknown change type"), "the reviewer is told the deploy will need approval")
		assert.Equal(t, w.gh.CheckRuns()[0].Conclusion, "neutral", "a change, not a clean result")
	})
	t.Run("deploy", func(t *testing.T) {
		w := newWorkspace(t)
		w.onPush()
		w.stub(cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, StdoutFile: abs(t, "testdata/deploy/diff-import.json")})
		res := w.run(map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false", "allow-destroy-types": "AWS::S3::Bucket"})
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["failure-reason"], "destructive-refused")
		assert.Assert(t, is.Contains(res.summary, "IMPORT"))
		assert.Assert(t, is.Contains(res.stdout, "allow-destroy-types does not approve it"))
	})
}

// GitHub applied the create and the answer was lost (502, a reset
// connection): the run uses what the create made instead of posting a
// second comment, check run or tracking issue.
func TestAppliedCreateIsNotDuplicated(t *testing.T) {
	lost := []struct {
		name  string
		fault githubtest.Fault
	}{
		{"answered 502", githubtest.Fault{Times: 1, Status: 502, Apply: true}},
		{"connection reset", githubtest.Fault{Times: 1, Reset: true, Apply: true}},
		{"answer cut off part-way", githubtest.Fault{Times: 1, Cut: true}},
		{"answered 201, cut after the headers", githubtest.Fault{Times: 1, CutAfterHeaders: true}},
	}
	for _, tc := range lost {
		t.Run("diff/"+tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
			for _, op := range []string{githubtest.OpCreateIssueComment, githubtest.OpCreateCheckRun} {
				f := tc.fault
				f.Operation = op
				w.gh.Inject(f)
			}
			res := w.run(map[string]string{"all": "true"})
			assert.Equal(t, res.code, 0, res.stdout)
			comments := w.gh.Comments(owner, repo, prNum)
			assert.Assert(t, is.Len(comments, 1), "one sticky comment")
			assert.Equal(t, res.outputs["comment-url"], comments[0].HTMLURL)
			runs := reportRuns(w.gh)
			assert.Assert(t, is.Len(runs, 1), "one check run")
			assert.Equal(t, res.outputs["check-run-url"], runs[0].HTMLURL)
			// The record names the comment that holds the review, never 0.
			assert.Assert(t, is.Contains(runs[0].ExternalID, fmt.Sprintf(":%d:", comments[0].ID)), runs[0].ExternalID)
		})
		t.Run("drift issue/"+tc.name, func(t *testing.T) {
			w := newDriftWorkspace(t)
			w.stub(detect(t, "drifted.json", 1))
			f := tc.fault
			f.Operation = githubtest.OpCreateIssue
			w.gh.Inject(f)
			res := w.run(withAssembly(t, withInputs(all, "issue", "true", "fail-on-drift", "false")))
			assert.Equal(t, res.code, 0, res.stdout)
			assert.Assert(t, is.Len(w.gh.Issues(), 1), "one tracking issue")
			assert.Equal(t, res.outputs["issue-url"], w.gh.Issues()[0].HTMLURL)
		})
	}
}

// A drift --revert stopped by timeout-minutes takes the lock: the report
// says it may still be held, and the step fails with timeout.
func TestDriftRevertTimeout(t *testing.T) {
	w := newDriftWorkspace(t)
	revert := detect(t, "", 0, "--revert", "-y")
	revert.StderrLines = []cdkdtest.Line{{Text: "Revert plan for StackA: 3 resources"}}
	revert.DelayMs = 10 * 60 * 1000
	revert.OnSigint = &cdkdtest.Sigint{Stderr: "Interrupted\n", Exit: 130}
	w.stub(detect(t, "drifted.json", 1), detect(t, "drifted.json", 0, "--revert", "--dry-run"), revert)
	res := w.run(withInputs(all, "drift-resolution", "revert", "timeout-minutes", "0.01"))
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "timeout")
	assert.Assert(t, is.Contains(res.summary, "may still be held"))
	assert.Assert(t, is.Contains(res.summary, "cdkd force-unlock StackA --stack-region"))
	assert.Assert(t, !strings.Contains(res.summary, "released its lock"))
}

// A deploy stopped after cdkd printed a resource as created tells the
// truth: deployed is partial, the stack lists what the log shows and how
// to find out the rest, the lock is what cdkd said of it (a negation is
// not a release), and a timeout is not called a cancellation.
func TestDeployLastWordsAreTrue(t *testing.T) {
	progress := "Deploying stack: StackA\nDeploying 2 resource(s) (DAG: 1 levels, max parallel: 10)\n[1/2] ✓ NewQueue1C62264E (AWS::SQS::Queue) created\n"
	tests := []struct {
		name   string
		sigint *cdkdtest.Sigint
		want   []string
	}{
		{
			name: "timed out, cdkd says the lock may not be released",
			sigint: &cdkdtest.Sigint{Exit: 130, Stderr: "Interrupted — waiting for in-progress operations to complete...\n" +
				"Force-quit: stack lock may not be released. If the next run reports a lock, run: cdkd force-unlock StackA --stack-region us-east-1\n"},
			want: []string{"Deploy timed out", "ran longer than timeout-minutes", "cdkd said the lock of StackA may not be released"},
		},
		{
			name:   "timed out, cdkd ignores SIGINT and is killed",
			sigint: &cdkdtest.Sigint{Ignore: true},
			want:   []string{"Deploy timed out", "did not exit within its " + e2eKillGrace.String() + " grace period after SIGINT and was killed (SIGKILL)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.onPush()
			w.stub(gateDiff(t, "testdata/deploy/diff-safe.json"),
				cdkdtest.Invocation{Args: []string{"deploy", "StackA", "StackB", "--exclusively", "-y"}, Stdout: progress, DelayMs: 10 * 60 * 1000, OnSigint: tc.sigint})
			res := w.run(map[string]string{"command": "deploy", "all": "true", "require-reviewed-diff": "false", "timeout-minutes": "0.01"})
			assert.Equal(t, res.code, 3, res.stdout)
			assert.Equal(t, res.outputs["failure-reason"], "timeout")
			assert.Equal(t, res.outputs["deployed"], "partial", "cdkd printed a resource as created")
			for _, text := range []string{res.summary, deployCheck(t, w.gh).Output.Summary} {
				for _, want := range tc.want {
					assert.Assert(t, is.Contains(text, want))
				}
				assert.Assert(t, is.Contains(text, "1 created known, more may have changed"))
				assert.Assert(t, is.Contains(text, "cdkd events StackA --stack-region us-east-1"))
				assert.Assert(t, is.Contains(text, "cdkd force-unlock StackA --stack-region us-east-1"))
				for _, never := range []string{"said it released", "no resource changed", "cancelled", "was stopped"} {
					assert.Assert(t, !strings.Contains(text, never), "%q in: %s", never, text)
				}
			}
		})
	}
}

// A hung diff that ignores SIGINT is killed after the grace period, and
// the report names the kill: a killed diff is not merely "stopped".
func TestHungDiffIgnoringSigintIsKilledAndNamed(t *testing.T) {
	w := newWorkspace(t)
	inv := hung("diff", "--all", "--json", "--recursive")
	inv.OnSigint = &cdkdtest.Sigint{Ignore: true}
	w.stub(inv)
	res := w.run(map[string]string{"all": "true", "timeout-minutes": "0.01"})
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "timeout")
	for _, text := range []string{res.summary, w.gh.CheckRuns()[0].Output.Summary} {
		assert.Assert(t, is.Contains(text, "did not exit within its "+e2eKillGrace.String()+" grace period after SIGINT and was killed (SIGKILL)"))
		assert.Assert(t, !strings.Contains(text, "was stopped"), text)
	}
}

// A diff whose comment could not be written leaves a check run that names
// no comment: a record of "comment 0" would vouch for nothing.
func TestCheckRunNeverNamesCommentZero(t *testing.T) {
	w := newWorkspace(t)
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	w.gh.Inject(githubtest.Fault{Times: 100, Operation: githubtest.OpCreateIssueComment, Status: 422})
	res := w.run(map[string]string{"all": "true"})
	assert.Assert(t, res.code != 0, res.stdout)
	assert.Assert(t, is.Len(w.gh.Comments(owner, repo, prNum), 0))
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1), "the check run is still written")
	assert.Assert(t, !strings.Contains(runs[0].ExternalID, ":diff:0:"), runs[0].ExternalID)
}

// Duplicates converge even late: a later diff run that finds more than
// one sticky comment of its own (an earlier run's create GitHub applied
// after that run ended) keeps one, deletes the others, and its check run
// names the one kept.
func TestLaterRunRemovesLateDuplicates(t *testing.T) {
	w := newWorkspace(t)
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	old := marker.Header{Kind: "diff", SHA: headSHA}.String() + "\n\nan earlier run's report"
	w.gh.SeedComments(owner, repo, prNum, githubtest.DefaultLogin, old, old)
	res := w.run(map[string]string{"all": "true"})
	assert.Equal(t, res.code, 0, res.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1), "one sticky comment")
	assert.Assert(t, !strings.Contains(comments[0].Body, "an earlier run's report"))
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	assert.Assert(t, is.Contains(runs[0].ExternalID, fmt.Sprintf(":%d:", comments[0].ID)), runs[0].ExternalID)
}
