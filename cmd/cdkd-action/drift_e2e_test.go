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
	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// The commit a scheduled run checks (GITHUB_SHA in the harness).
const scheduledSHA = "9999999999999999999999999999999999999999"

// newDriftWorkspace is a scheduled run: no pull request in the event.
func newDriftWorkspace(t *testing.T) *workspace {
	t.Helper()
	w := newWorkspace(t)
	event := filepath.Join(w.dir, "schedule.json")
	writeFile(t, event, readFile(t, "testdata/drift/schedule.json"))
	w.vars["GITHUB_EVENT_NAME"] = "schedule"
	w.vars["GITHUB_EVENT_PATH"] = event
	w.vars["INPUT_COMMAND"] = "drift"
	return w
}

// detect is `cdkd drift --all --json` answering with a fixture.
func detect(t *testing.T, fixture string, exit int, extra ...string) cdkdtest.Invocation {
	t.Helper()
	inv := cdkdtest.Invocation{
		Args: append([]string{"drift", "--all", "--json"}, extra...),
		Env:  map[string]string{"CDKD_NO_LIVE": "1"},
		Exit: exit,
	}
	if fixture != "" {
		inv.StdoutFile = abs(t, "testdata/drift/"+fixture)
	}
	return inv
}

// detectStack is `cdkd drift <stack> --json` answering with a fixture.
func detectStack(t *testing.T, fixture string, exit int, stack string, extra ...string) cdkdtest.Invocation {
	t.Helper()
	inv := detect(t, fixture, exit)
	inv.Args = append([]string{"drift", stack, "--json"}, extra...)
	return inv
}

func stderrFile(t *testing.T, inv cdkdtest.Invocation, name string) cdkdtest.Invocation {
	t.Helper()
	inv.StderrFile = abs(t, "testdata/drift/"+name)
	return inv
}

var all = map[string]string{"all": "true"}

// withAssembly adds the synthesized assembly of StackA and StackB as app:
// with it, drifted values show, all but those at secret positions.
// Without one every drifted value is hidden (TestDriftWithoutAssembly).
func withAssembly(t *testing.T, base map[string]string) map[string]string {
	t.Helper()
	return withInputs(base, "app", abs(t, "testdata/drift/assembly"))
}

func withInputs(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func onlyCheckRun(t *testing.T, gh *githubtest.Server) githubtest.CheckRun {
	t.Helper()
	runs := gh.CheckRuns()
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, runs[0].Name, "cdkd drift")
	assert.Equal(t, runs[0].HeadSHA, scheduledSHA, "the check run is on the commit being checked")
	return runs[0]
}

func TestDriftClean(t *testing.T) {
	w := newDriftWorkspace(t)
	stub := w.stub(detect(t, "clean.json", 0))
	res := w.run(all)
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["drift-status"], "clean")
	assert.Equal(t, res.outputs["drifted-count"], "0")
	assert.Equal(t, res.outputs["not-compared-count"], "0")
	assert.Equal(t, res.outputs["failure-reason"], "")
	assert.Equal(t, res.outputs["issue-url"], "", "issue is off by default")
	run := onlyCheckRun(t, w.gh)
	assert.Equal(t, run.Conclusion, "success")
	assert.Equal(t, run.Output.Title, "No drift")
	assert.Equal(t, res.outputs["check-run-url"], run.HTMLURL)
	assert.Assert(t, is.Contains(res.summary, "✅ **No drift:** every compared resource matches cdkd's state."))
	assert.Assert(t, is.Contains(res.summary, "`StackA` (us-east-1) · 7 of 7 resources fully checked"))
	assert.Assert(t, is.Len(w.gh.Issues(), 0))

	var report struct {
		Kind   string `json:"kind"`
		Status string `json:"status"`
		Stacks []struct {
			Stack string `json:"stack"`
		} `json:"stacks"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
	assert.Equal(t, report.Kind, "drift")
	assert.Equal(t, report.Status, "clean")
	assert.Equal(t, len(report.Stacks), 2)
}

func TestDriftDrifted(t *testing.T) {
	for _, tc := range []struct {
		name       string
		failOn     string
		code       int
		reason     string
		conclusion string
	}{
		{name: "fail-on-drift default", failOn: "", code: 1, reason: "drift"},
		{name: "fail-on-drift false", failOn: "false", code: 0, reason: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDriftWorkspace(t)
			w.stub(detect(t, "drifted.json", 1))
			res := w.run(withAssembly(t, withInputs(all, "fail-on-drift", tc.failOn)))
			assert.Equal(t, res.code, tc.code, res.stdout)
			assert.Equal(t, res.outputs["drift-status"], "drifted")
			assert.Equal(t, res.outputs["drifted-count"], "3")
			assert.Equal(t, res.outputs["failure-reason"], tc.reason)
			run := onlyCheckRun(t, w.gh)
			assert.Equal(t, run.Conclusion, "failure", "drift is a failing check whatever the step does")
			assert.Equal(t, run.Output.Title, "3 resources drifted")
			assert.Assert(t, is.Contains(run.Output.Summary, "`VisibilityTimeout`: `30` → `99`"))
			assert.Assert(t, is.Contains(res.summary, "🔴 **Drift detected:** 3 resources drifted in 1 of 2 stacks."))
			assert.Assert(t, is.Contains(res.summary, "`DisplayName`: `\"fixture-topic-v1\"` → `\"changed-out-of-band\"`"))
		})
	}
}

// Today's cdkd: a refused reference exits 2 with no cause in its JSON, but
// its log names the resource and says why (sample 25): that line is the
// evidence, before any inference, and its reason is shown. Without that
// line and without AWS the state cannot be read, so the exit code alone
// decides, and the report says so.
func TestDriftRefusedOnlyWithoutState(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(stderrFile(t, detectStack(t, "refused.json", 2, "StackC"), "refused.stderr"))
	res := w.run(map[string]string{"stacks": "StackC"})
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "incomplete")
	assert.Equal(t, res.outputs["failure-reason"], "incomplete")
	assert.Equal(t, res.outputs["not-compared-count"], "1")
	assert.Equal(t, res.outputs["drifted-count"], "0")
	run := onlyCheckRun(t, w.gh)
	assert.Equal(t, run.Conclusion, "action_required")
	assert.Equal(t, run.DetailsURL, w.gh.URL+"/"+owner+"/"+repo+"/actions/runs/4242")
	assert.Equal(t, run.Output.Title, "Could not check everything: 1 resource not checked")
	assert.Assert(t, is.Contains(res.summary, "⚠️ **Could not check everything:**"))
	assert.Assert(t, is.Contains(res.summary, "🚫 **Refused** (1)"))
	assert.Assert(t, is.Contains(res.summary, "spell the reference as a full ARN"))
	assert.Assert(t, is.Contains(res.summary, "- `XrSecretParam` · `AWS::SSM::Parameter` · cause from cdkd's log"))
	assert.Assert(t, is.Contains(res.summary, "cdkd: refused to resolve a dynamic reference this resource's state records"))
	assert.Assert(t, is.Contains(res.summary, "carries no region of its own"), "cdkd's own reason is shown")
	assert.Assert(t, !strings.Contains(res.summary, "inferred from cdkd's exit code"), "the log decided: nothing is inferred")
	assert.Assert(t, !strings.Contains(res.summary, "No drift"))
	assert.Assert(t, !strings.Contains(res.summary, "Drift detected"))

	// A state bucket, but no AWS credentials: said so too (with no region
	// at all, cdkd cannot run and the run is refused first).
	w2 := newDriftWorkspace(t)
	w2.stub(detectStack(t, "refused.json", 2, "StackC", "--state-bucket", "my-state"))
	res = w2.run(map[string]string{"stacks": "StackC", "state-bucket": "my-state", "fail-on-incomplete": "false"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "incomplete")
	assert.Equal(t, res.outputs["failure-reason"], "")
	assert.Assert(t, is.Contains(res.summary, "The state records of StackC could not be read"))
	assert.Assert(t, is.Contains(res.summary, "inferred from cdkd's exit code"), "no log line: the exit code decides, and says so")
	assert.Assert(t, is.Contains(res.stdout, "::warning::could not read the state of StackC to tell a refused comparison from an ssm-secure one: "))
	assert.Assert(t, is.Contains(res.stdout, "no AWS credentials"))
	assert.Equal(t, onlyCheckRun(t, w2.gh).Conclusion, "action_required", "the check says so even when the step does not fail")
}

// Today's cdkd: an ssm-secure reference exits 0 with the same JSON shape.
// That is permanent and still clean, with a note.
func TestDriftUnresolvedTokenOnly(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(stderrFile(t, detectStack(t, "ssmsecure.json", 0, "StackD"), "ssmsecure.stderr"))
	res := w.run(map[string]string{"stacks": "StackD"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "clean")
	assert.Equal(t, res.outputs["not-compared-count"], "1")
	assert.Equal(t, onlyCheckRun(t, w.gh).Conclusion, "success")
	assert.Assert(t, is.Contains(res.summary, "🔒 **Unresolved token** (1)"))
	assert.Assert(t, is.Contains(res.summary, "1 of 2 resources fully checked (1 only partially compared)"))
	assert.Assert(t, is.Contains(res.summary, "Permanent: it does not make the check incomplete"))
	assert.Assert(t, !strings.Contains(res.summary, "nothing to do"), "a revert may overwrite an embedded token's live value: not nothing to do")
	assert.Assert(t, is.Contains(res.summary, "or embedded in a longer string (a `--revert` overwrites the value AWS holds) is **unknown**"), "no state record, no assembly: which case is unknown")
	assert.Assert(t, is.Contains(res.summary, "cdkd: cdkd cannot resolve {{resolve:ssm-secure:/fixture/secure-value}}"), "cdkd's own line, from sample 86")
}

// The seeds' cdkd reports causes itself: readFailed makes the check
// incomplete; an unknown cause is shown verbatim, never dropped.
func TestDriftReadFailedSeedsShape(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "readfailed.json", 2))
	res := w.run(all)
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "incomplete")
	assert.Equal(t, res.outputs["not-compared-count"], "3")
	assert.Equal(t, onlyCheckRun(t, w.gh).Conclusion, "action_required")
	assert.Assert(t, is.Contains(res.summary, "❗ **Read failed** (1)"))
	assert.Assert(t, is.Contains(res.summary, "grant the read permission"))
	assert.Assert(t, is.Contains(res.summary, "❔ **Cause `regionMismatch`** (1)"))
	assert.Assert(t, !strings.Contains(res.summary, "inferred"), "causes were reported: nothing to infer")
}

// A drifted resource that is also only partially compared is drift (it
// outranks), and counts as not fully compared.
func TestDriftPartiallyComparedDrift(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "partial.json", 1))
	res := w.run(all)
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "drifted")
	assert.Equal(t, res.outputs["drifted-count"], "1")
	assert.Equal(t, res.outputs["not-compared-count"], "1")
	assert.Equal(t, onlyCheckRun(t, w.gh).Conclusion, "failure")
	assert.Assert(t, is.Contains(res.summary, "`Fn` · `AWS::Lambda::Function` · ⚠️ only partially compared"))
	assert.Assert(t, is.Contains(res.summary, "1 of 2 resources fully checked (1 only partially compared)"))
}

// Today's cdkd aborts the whole run on one failed read: exit 1, no JSON.
// That is an error with cdkd's reason — never drift, never clean.
func TestDriftCrashIsAnError(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(stderrFile(t, detect(t, "", 1), "crash.stderr"))
	res := w.run(withInputs(all, "issue", "true"))
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "error")
	assert.Equal(t, res.outputs["failure-reason"], "cdkd-failed")
	assert.Equal(t, res.outputs["drifted-count"], "")
	assert.Equal(t, res.outputs["not-compared-count"], "")
	run := onlyCheckRun(t, w.gh)
	assert.Equal(t, run.Conclusion, "failure")
	assert.Equal(t, run.Output.Title, "cdkd drift failed")
	assert.Assert(t, is.Contains(run.Output.Summary, "ECONNREFUSED"))
	assert.Assert(t, is.Contains(res.summary, "❌ **Drift could not be checked:**"))
	assert.Assert(t, is.Contains(res.summary, "neither drift nor a clean result"))
	for _, s := range []string{res.summary, run.Output.Summary} {
		assert.Assert(t, !strings.Contains(s, "No drift"))
		assert.Assert(t, !strings.Contains(s, "Drift detected"))
	}
	assert.Assert(t, is.Len(w.gh.Issues(), 0), "an error opens no issue")
}

func TestDriftOnlyUnsupported(t *testing.T) {
	// What cdkd never checks by design (Custom::*, a type with no read
	// handler) is reported "without any uncertainty claim" (the seed), so
	// that such a stack's CI does not fail forever: exit 0 stays a success,
	// even with fail-on-incomplete. No ✓ either: the coverage line says
	// nothing was compared, and the check is neutral.
	t.Run("nothing compared by design: clean, no ✓", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.stub(detect(t, "unsupported.json", 0))
		res := w.run(all)
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "clean")
		assert.Equal(t, res.outputs["failure-reason"], "")
		assert.Equal(t, res.outputs["drifted-count"], "0")
		assert.Equal(t, res.outputs["not-compared-count"], "0")
		run := onlyCheckRun(t, w.gh)
		assert.Equal(t, run.Conclusion, "neutral")
		assert.Equal(t, run.Output.Title, "No drift detected, but nothing was compared")
		assert.Assert(t, is.Contains(res.summary, "⚠️ **No drift detected, but nothing was compared:** cdkd never drift-checks these resources by design"))
		assert.Assert(t, !strings.Contains(res.summary, "✅"), res.summary)
		assert.Assert(t, !strings.Contains(res.summary, "Could not check"), res.summary)
		assert.Assert(t, is.Contains(res.summary, "0 of 3 resources checked (2 unsupported, 1 skipped)"))
		assert.Assert(t, is.Contains(res.summary, "`AWS::AppSync::GraphQLSchema` ×1"))
		assert.Assert(t, is.Contains(res.summary, "`Custom::Provider` ×1"))
	})
	t.Run("a type cdkd reads: possibly deleted, incomplete", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.stub(detect(t, "possibly-deleted.json", 0))
		res := w.run(all)
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "incomplete")
		assert.Equal(t, res.outputs["not-compared-count"], "1")
		assert.Equal(t, onlyCheckRun(t, w.gh).Conclusion, "action_required")
		assert.Assert(t, is.Contains(res.summary, "**⚠️ Not checked (possibly deleted) (1)**"))
		assert.Assert(t, is.Contains(res.summary, "- `Handler` · `AWS::Lambda::Function`"))
		assert.Assert(t, !strings.Contains(res.summary, "✅"), res.summary)
	})
}

// acceptText is what cdkd 0.284.40 prints after the JSON on stdout under
// --json --accept -y (sample 94's shape) for drifted.json's three resources.
const acceptText = `
Plan (--accept): update cdkd state for StackA (us-east-1):
  ~ Bucket83908E77 (AWS::S3::Bucket)
    VersioningConfiguration.Status: Enabled -> Suspended
  ~ Queue4A7E3555 (AWS::SQS::Queue)
    VisibilityTimeout: 30 -> 99
  ~ TopicBFC7AF6E (AWS::SNS::Topic)
    DisplayName: fixture-topic-v1 -> changed-out-of-band
`

// accept: detection, --accept -y, then detection again. What was accepted
// comes from cdkd's own lines, not from the detection's drift list.
func TestDriftAccept(t *testing.T) {
	t.Run("every resource accepted", func(t *testing.T) {
		w := newDriftWorkspace(t)
		accept := detect(t, "", 0, "--accept", "-y")
		accept.Stdout = readFile(t, "testdata/drift/drifted.json") + acceptText +
			"✓ State updated for StackA (us-east-1): accepted drift on 3 resource(s).\n"
		stub := w.stub(detect(t, "drifted.json", 1), accept, detect(t, "clean.json", 0))
		res := w.run(withAssembly(t, withInputs(all, "drift-resolution", "accept")))
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Equal(t, res.outputs["drift-status"], "drifted", "drift-status keeps the detection result")
		assert.Equal(t, res.outputs["drifted-count"], "3")
		run := onlyCheckRun(t, w.gh)
		assert.Equal(t, run.Conclusion, "success")
		assert.Equal(t, run.Output.Title, "3 resources drifted · accepted")
		assert.Assert(t, is.Contains(res.summary, "✅ **Accepted** (3)\n- `StackA/Bucket83908E77` · `AWS::S3::Bucket`\n- `StackA/Queue4A7E3555` · `AWS::SQS::Queue`\n- `StackA/TopicBFC7AF6E` · `AWS::SNS::Topic`"))
		assert.Assert(t, is.Contains(res.summary, "> ✓ State updated for StackA (us-east-1): accepted drift on 3 resource(s)."))
		assert.Assert(t, is.Contains(res.summary, "After the resolution, `cdkd drift` reports: ✅ no drift."))
		assert.Assert(t, is.Contains(res.summary, "`VisibilityTimeout`: `30` → `99`"), "the detection result stays in the report")
		assert.Assert(t, is.Contains(res.summary, "VisibilityTimeout: 30 -> 99"), "cdkd's text is kept: the position's values were shown")
		assert.Assert(t, is.Contains(res.stdout, "    VisibilityTimeout: 30 -> 99"), "and logged")
	})
	// seed: --accept REFUSES a secret-bearing property whose AWS-current
	// value it cannot identify, "warned about by name and the drift is
	// still reported on the next run": skipped, never "accepted".
	t.Run("a skipped property is not accepted", func(t *testing.T) {
		w := newDriftWorkspace(t)
		accept := detect(t, "", 0, "--accept", "-y")
		accept.Stdout = readFile(t, "testdata/drift/drifted.json") + acceptText +
			"✓ State updated for StackA (us-east-1): accepted drift on 2 resource(s).\n"
		accept.Stderr = "  ! TopicBFC7AF6E (AWS::SNS::Topic): DisplayName SKIPPED — secret-bearing property whose AWS-current value could not be identified; not accepted\n"
		stub := w.stub(detect(t, "drifted.json", 1), accept, detect(t, "drifted-v2.json", 1))
		res := w.run(withAssembly(t, withInputs(all, "drift-resolution", "accept", "fail-on-drift", "false")))
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Assert(t, is.Contains(res.summary, "✅ **Accepted** (2)\n- `StackA/Bucket83908E77` · `AWS::S3::Bucket`\n- `StackA/Queue4A7E3555` · `AWS::SQS::Queue`\n"))
		assert.Assert(t, is.Contains(res.summary, "⏭️ **Skipped by cdkd** (1)"))
		assert.Assert(t, is.Contains(res.summary, "- `StackA/TopicBFC7AF6E` · `AWS::SNS::Topic`: DisplayName SKIPPED — secret-bearing property"), res.summary)
		assert.Assert(t, !strings.Contains(res.summary, "Accepted** (3)"), res.summary)
		assert.Assert(t, !strings.Contains(res.summary, "deploy --replace"), "--replace is for --revert's update-not-supported case only")
	})
}

// Today's cdkd prints the resolution's plan, its ✓ lines and its summary on
// STDOUT after the JSON under --json (samples 93 and 94), and its plan
// prints values in plaintext, the NoEcho parameter's live value included.
// The text is read and kept, never dropped; values are redacted.
func TestDriftResolutionTextAfterTheJSON(t *testing.T) {
	for _, tc := range []struct {
		mode, sample, want, summary string
	}{
		{"revert", "93-drift-stackA-revert-yes-json", "✅ **Reverted** (1)\n- `StackA/NoEchoParam2FCCC8BD` · `AWS::SSM::Parameter`", "> Revert summary: 1 reverted."},
		{"accept", "94-drift-stackA-accept-yes-json", "✅ **Accepted** (1)\n- `StackA/NoEchoParam2FCCC8BD` · `AWS::SSM::Parameter`", "> ✓ State updated for StackA (us-east-1): accepted drift on 1 resource(s)."},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			w := newDriftWorkspace(t)
			sample := abs(t, "../../testdata/cdkd-samples/"+tc.sample)
			first := detectStack(t, "noecho-oob.json", 1, "StackA")
			resolve := detectStack(t, "", 0, "StackA", "--"+tc.mode, "-y")
			// Its stderr names the secret-named queue, which only the state
			// records give (TestDriftStateReferences): stdout is the point.
			resolve.StdoutFile = sample + ".stdout"
			invs := []cdkdtest.Invocation{first}
			if tc.mode == "revert" {
				plan := detectStack(t, "", 0, "StackA", "--revert", "--dry-run")
				plan.Stdout = readFile(t, "testdata/drift/noecho-oob.json") +
					"\nPlan (--revert): push cdkd state values back into AWS for StackA (us-east-1):\n" +
					"  → provider.update on NoEchoParam2FCCC8BD (AWS::SSM::Parameter): revert 1 property path\n" +
					"    Value: oob-noecho-value -> hunter2-noecho-v1\n"
				invs = append(invs, plan)
			}
			invs = append(invs, resolve, detectStack(t, "clean.json", 0, "StackA"))
			stub := w.stub(invs...)
			res := w.run(withAssembly(t, map[string]string{"stacks": "StackA", "drift-resolution": tc.mode, "issue": "true", "fail-on-drift": "false"}))
			assert.Equal(t, res.code, 0, res.stdout)
			stub.AssertAllUsed(t)
			assert.Assert(t, is.Contains(res.summary, tc.want), res.summary)
			assert.Assert(t, is.Contains(res.summary, tc.summary))
			assert.Assert(t, is.Contains(res.summary, "Value: *** -> ***"), "cdkd's plan line is kept, its values redacted")
			assert.Assert(t, is.Contains(res.stdout, "    Value: *** -> ***"), "and logged")
			assertHidden(t, res.channels, append(sampleSecrets, "oob-noecho-value")...)
		})
	}
}

// A resolution runs only when detection found drift.
func TestDriftResolutionOnlyOnDrift(t *testing.T) {
	w := newDriftWorkspace(t)
	stub := w.stub(detect(t, "clean.json", 0))
	res := w.run(withInputs(all, "drift-resolution", "revert"))
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Assert(t, !strings.Contains(res.summary, "Resolution"))
}

// Today's cdkd reports an immutable property as reverted when nothing
// changed: only the detection after the revert tells.
func TestDriftRevertStillDrifted(t *testing.T) {
	w := newDriftWorkspace(t)
	revert := detect(t, "drifted.json", 0, "--revert", "-y")
	// cdkd 0.284.40's lines (testdata/cdkd-kumo-rotation capture 05: the
	// queue's name "reverted", and still drifted after).
	revert.Stderr = "  ✓ StackA/Bucket83908E77 (AWS::S3::Bucket): reverted.\n  ✓ StackA/Queue4A7E3555 (AWS::SQS::Queue): reverted.\n" +
		"  ✓ StackA/TopicBFC7AF6E (AWS::SNS::Topic): reverted.\nRevert summary: 3 reverted\n"
	w.stub(detect(t, "drifted.json", 1), detect(t, "drifted.json", 0, "--revert", "--dry-run"), revert, detect(t, "after-revert.json", 1))
	res := w.run(withInputs(all, "drift-resolution", "revert"))
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "drift")
	run := onlyCheckRun(t, w.gh)
	assert.Equal(t, run.Conclusion, "failure")
	assert.Equal(t, run.Output.Title, "3 resources drifted · 1 resource still drifted after revert")
	// Reported once, under what cdkd said.
	assert.Assert(t, is.Contains(res.summary, "⚠️ **cdkd said reverted, still drifted** (1)"))
	assert.Assert(t, is.Contains(res.summary, "✅ **Reverted** (2)\n- `StackA/Bucket83908E77`"))
	assert.Equal(t, strings.Count(res.summary, "`StackA/Queue4A7E3555`"), 1, res.summary)
	assert.Assert(t, is.Contains(res.summary, "🔴 **Still drifted after the revert:** the 1 resource cdkd said it reverted (above)."))
}

// --revert's exit 2 is a partial failure: a failure naming the resources.
func TestDriftRevertPartialFailure(t *testing.T) {
	w := newDriftWorkspace(t)
	revert := detect(t, "drifted.json", 2, "--revert", "-y")
	revert.Stderr = strings.Join([]string{
		"Revert plan for StackA: 3 resources",
		"\x1b[31m✗ StackA/TopicBFC7AF6E (AWS::SNS::Topic): AWS update failed — AuthorizationError\x1b[0m",
		"⊘ StackA/Queue4A7E3555 (AWS::SQS::Queue): could not revert — ResourceUpdateNotSupportedError",
		"Revert summary: 1 reverted, 1 failed, 1 update-not-supported",
		"PartialFailureError: 2 resource(s) did not revert",
	}, "\n") + "\n"
	w.stub(detect(t, "drifted.json", 1), detect(t, "drifted.json", 0, "--revert", "--dry-run"), revert, detect(t, "drifted-v2.json", 1))
	res := w.run(withInputs(all, "drift-resolution", "revert"))
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "resolution-failed")
	assert.Equal(t, res.outputs["drift-status"], "drifted")
	run := onlyCheckRun(t, w.gh)
	assert.Equal(t, run.Conclusion, "failure")
	assert.Equal(t, run.Output.Title, "3 resources drifted · revert failed")
	for _, want := range []string{
		"❌ **revert partly failed:** 2 resources not resolved (cdkd exited 2).",
		"❌ **Failed** (1): cdkd's error is shown; inspect it and retry once its cause is resolved.\n- `StackA/TopicBFC7AF6E` · `AWS::SNS::Topic`: AWS update failed — AuthorizationError",
		"⊘ **Update not supported** (1): the type cannot be updated in place. **To fix:** re-deploy the stack with `cdkd deploy --replace` (or destroy and re-deploy).\n- `StackA/Queue4A7E3555` · `AWS::SQS::Queue`: could not revert — ResourceUpdateNotSupportedError",
		"❔ **No line from cdkd** (1)",
		"🔴 **Still drifted after the revert:** `StackA/TopicBFC7AF6E (DisplayName)`",
	} {
		assert.Assert(t, is.Contains(res.summary, want))
	}
	assert.Assert(t, is.Contains(res.stdout, "::error::cdkd drift --revert: 2 resource(s) were not resolved"))
}

// issueWrites counts the requests that wrote the tracking issue.
func issueWrites(gh *githubtest.Server) int {
	n := 0
	for _, r := range gh.Requests() {
		switch r.Operation {
		case githubtest.OpCreateIssue, githubtest.OpUpdateIssue, githubtest.OpCreateIssueComment, githubtest.OpUpdateIssueComment:
			n++
		}
	}
	return n
}

// One tracking issue per label, across five nightly runs: opened on drift,
// edited when the drift changes, closed with a comment when clean, reopened
// when drift comes back, and left alone when nothing changed.
func TestDriftIssueLifecycle(t *testing.T) {
	w := newDriftWorkspace(t)
	stub := w.stub(
		detect(t, "drifted.json", 1),
		detect(t, "drifted-v2.json", 1),
		detect(t, "clean.json", 0),
		detect(t, "drifted.json", 1),
		detect(t, "drifted.json", 1),
	)
	// Noise: someone else's issue carrying our header (a spoof), and an
	// unrelated one.
	spoof := w.gh.AddIssue(githubtest.Issue{Title: "spoof", Login: "mallory",
		Body: marker.Header{Kind: "drift"}.String() + "\nfake"})
	w.gh.AddIssue(githubtest.Issue{Title: "bug", Body: "unrelated"})
	inputs := withAssembly(t, withInputs(all, "issue", "true", "issue-labels", "drift, infra", "fail-on-drift", "false"))

	ours := func() githubtest.Issue {
		t.Helper()
		var mine []githubtest.Issue
		for _, is := range w.gh.Issues() {
			if is.Login == githubtest.DefaultLogin {
				mine = append(mine, is)
			}
		}
		assert.Assert(t, is.Len(mine, 1), "exactly one tracking issue")
		return mine[0]
	}

	first := w.run(inputs)
	assert.Equal(t, first.code, 0, first.stdout)
	issue := ours()
	assert.Equal(t, issue.State, "open")
	assert.Equal(t, issue.Title, "cdkd drift: 3 resources drifted")
	assert.DeepEqual(t, issue.Labels, []string{"drift", "infra"})
	h, ok := marker.Parse(issue.Body)
	assert.Assert(t, ok)
	assert.Equal(t, h.Kind, "drift")
	assert.Equal(t, h.Label, "")
	assert.Assert(t, is.Contains(issue.Body, "`VisibilityTimeout`: `30` → `99`"))
	assert.Equal(t, first.outputs["issue-url"], issue.HTMLURL)

	second := w.run(inputs)
	assert.Equal(t, second.code, 0, second.stdout)
	updated := ours()
	assert.Equal(t, updated.Number, issue.Number, "edited, not a second issue")
	assert.Equal(t, updated.Title, "cdkd drift: 1 resource drifted")
	assert.Assert(t, is.Contains(updated.Body, "changed-again"))
	assert.Assert(t, !strings.Contains(updated.Body, "VisibilityTimeout"))

	third := w.run(inputs)
	assert.Equal(t, third.code, 0, third.stdout)
	closed := ours()
	assert.Equal(t, closed.State, "closed")
	assert.Assert(t, is.Contains(closed.Body, "The latest check found no drift"))
	comments := w.gh.Comments(owner, repo, issue.Number)
	assert.Assert(t, is.Len(comments, 1))
	assert.Assert(t, is.Contains(comments[0].Body, "found no drift; closing"))

	fourth := w.run(inputs)
	assert.Equal(t, fourth.code, 0, fourth.stdout)
	reopened := ours()
	assert.Equal(t, reopened.Number, issue.Number)
	assert.Equal(t, reopened.State, "open")
	assert.Assert(t, is.Contains(reopened.Body, "`VisibilityTimeout`: `30` → `99`"))

	writes := issueWrites(w.gh)
	fifth := w.run(inputs)
	assert.Equal(t, fifth.code, 0, fifth.stdout)
	assert.Equal(t, issueWrites(w.gh), writes, "nothing changed: nothing posted")
	assert.Equal(t, fifth.outputs["issue-url"], issue.HTMLURL)
	stub.AssertAllUsed(t)

	for _, is := range w.gh.Issues() {
		if is.Number == spoof.Number {
			assert.Equal(t, is.Body, spoof.Body, "the spoof was never edited")
		}
	}
}

// A check that could not complete says so on the open issue, plainly and
// without claiming drift; it opens no issue when there is none.
func TestDriftIssueCouldNotCheck(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(
		detect(t, "refused.json", 2),
		detect(t, "drifted.json", 1),
		detect(t, "refused.json", 2),
		stderrFile(t, detect(t, "", 1), "crash.stderr"),
	)
	inputs := withInputs(all, "issue", "true", "fail-on-drift", "false", "fail-on-incomplete", "false")
	assert.Equal(t, w.run(inputs).code, 0)
	assert.Assert(t, is.Len(w.gh.Issues(), 0), "incomplete opens no issue")

	assert.Equal(t, w.run(inputs).code, 0)
	assert.Assert(t, is.Len(w.gh.Issues(), 1))

	assert.Equal(t, w.run(inputs).code, 0)
	issue := w.gh.Issues()[0]
	assert.Equal(t, issue.State, "open", "could not check is not clean")
	assert.Assert(t, is.Contains(issue.Body, "The latest check could not compare everything"))
	// The latest report claims no drift; the drift the last check found
	// stays below it, as the last known drift (issue 33: only a check
	// that compared a stack replaces its drift).
	latest, kept, found := strings.Cut(issue.Body, "**Last known drift**")
	assert.Assert(t, found, "the last known drift is kept:\n%s", issue.Body)
	assert.Assert(t, !strings.Contains(latest, "Drift detected"))
	assert.Assert(t, is.Contains(kept, "Drift detected"))
	assert.Equal(t, issue.Title, "cdkd drift: Could not check everything: 1 resource not checked")

	res := w.run(inputs)
	assert.Equal(t, res.code, 3)
	issue = w.gh.Issues()[0]
	assert.Equal(t, issue.State, "open")
	assert.Assert(t, is.Contains(issue.Body, "The latest check could not run"))
	assert.Assert(t, is.Contains(issue.Body, "ECONNREFUSED"))
	assert.Equal(t, issue.Title, "cdkd drift: cdkd drift failed")
}

// A secret in a drift value or path never shows: not in the check run, the
// issue, the job summary, the outputs, the report JSON, or the log as the
// runner shows it.
func TestDriftNeverShowsSecrets(t *testing.T) {
	w := newDriftWorkspace(t)
	inv := detect(t, "noecho-drift.json", 1)
	inv.Stderr = "NoEchoParam2FCCC8BD (AWS::SSM::Parameter): Value differs (hunter2-noecho-v1)\n"
	w.stub(inv)
	res := w.run(withInputs(all, "issue", "true", "app", abs(t, "testdata/drift/assembly")))
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drifted-count"], "2")
	assert.Assert(t, is.Len(w.gh.Issues(), 1))
	assertHidden(t, res.channels, sampleSecrets...)
	report := readFile(t, res.outputs["report-json"])
	assert.Assert(t, is.Contains(res.summary, "`Value`: `***` → `***` · 🔒 NoEcho"))
	// The position reads a NoEcho parameter: real drift, never "by design".
	assert.Assert(t, is.Contains(res.summary, "🔒 **Real drift at a NoEcho parameter's position** (values hidden): `NoEchoParam2FCCC8BD.Value`"))
	assert.Assert(t, is.Contains(res.summary, "`cdkd drift --revert` puts the parameter's value back; a re-deploy does not"))
	assert.Assert(t, !strings.Contains(res.summary, "by design"), res.summary)
	assert.Assert(t, is.Contains(report, `"secret":"NoEcho"`))
	assert.Assert(t, is.Contains(report, `"maskCase":"noEchoParameter"`))
	if os.Getenv("DRIFT_DEBUG") != "" {
		t.Log(res.stdout, res.summary)
	}
}

// Without any cloud assembly NoEcho positions are unknown, and today's cdkd
// prints a NoEcho value in plaintext as a stateValue: every drifted value
// is hidden, state and AWS alike, on every channel, and the report says
// why. The paths stay.
func TestDriftWithoutAssembly(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "noecho-drift.json", 1))
	res := w.run(withInputs(all, "issue", "true"))
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "drifted")
	assert.Equal(t, res.outputs["drifted-count"], "2")
	assert.Assert(t, is.Len(w.gh.Issues(), 1))
	// The AWS side is hidden too: it may be the live secret.
	assertHidden(t, res.channels, append(sampleSecrets, "rotated-by-hand", "fixture-topic-v1")...)

	const note = "Values hidden: no cloud assembly was found"
	run := onlyCheckRun(t, w.gh)
	for _, s := range []string{res.summary, run.Output.Summary, w.gh.Issues()[0].Body} {
		assert.Assert(t, is.Contains(s, note))
		assert.Assert(t, is.Contains(s, "pass the synthesized assembly as app to see them"))
		assert.Assert(t, is.Contains(s, "- `NoEchoParam2FCCC8BD` · `AWS::SSM::Parameter`\n  - `Value`: `***` → `***`"), "the path stays:\n%s", s)
		assert.Assert(t, is.Contains(s, "  - `DisplayName`: `***` → `***`"), "the path stays:\n%s", s)
		assert.Assert(t, is.Contains(s, "Every value in this stack is hidden"))
	}
	var report struct {
		Notes        []string `json:"notes"`
		HiddenStacks []string `json:"valuesHidden"`
		Stacks       []struct {
			Drifted []struct {
				Changes []struct {
					Path  string `json:"path"`
					State any    `json:"stateValue"`
					AWS   any    `json:"awsValue"`
				} `json:"changes"`
			} `json:"drifted"`
		} `json:"stacks"`
	}
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
	assert.Assert(t, is.Len(report.Notes, 1))
	assert.Assert(t, is.Contains(report.Notes[0], note))
	assert.DeepEqual(t, report.HiddenStacks, []string{"StackA"})
	for _, d := range report.Stacks[0].Drifted {
		for _, c := range d.Changes {
			assert.Equal(t, c.State, "***", c.Path)
			assert.Equal(t, c.AWS, "***", c.Path)
		}
	}
}

// A stack the assembly does not hold has unknown positions too: its values
// are hidden, the others' shown.
func TestDriftStackMissingFromAssembly(t *testing.T) {
	d1 := readFile(t, "testdata/drift/drifted.json")
	d2 := readFile(t, "testdata/drift/partial.json")
	both := filepath.Join(t.TempDir(), "both.json")
	writeFile(t, both, strings.TrimSuffix(strings.TrimSpace(d1), "]")+","+strings.TrimPrefix(strings.TrimSpace(d2), "["))
	w := newDriftWorkspace(t)
	inv := detect(t, "", 1)
	inv.StdoutFile = both
	w.stub(inv)
	res := w.run(withAssembly(t, withInputs(all, "fail-on-drift", "false")))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.summary, "`VisibilityTimeout`: `30` → `99`"), "StackA is in the assembly")
	assert.Assert(t, is.Contains(res.summary, "`MemorySize`: `***` → `***`"), "StackP is not")
	assert.Assert(t, is.Contains(res.summary, "Values hidden in StackP: the cloud assembly does not hold this stack"))
	assert.Assert(t, !strings.Contains(res.summary, "no cloud assembly was found"))
}

// Drift does not synthesize: a cdk.out an earlier step left in the working
// directory is the assembly when app is not one, read before cdkd runs.
// Values show, all but the NoEcho one.
func TestDriftCdkOutInWorkingDirectory(t *testing.T) {
	for _, app := range []string{"", "npx ts-node bin/app.ts"} {
		t.Run("app="+app, func(t *testing.T) {
			w := newDriftWorkspace(t)
			copyDir(t, "testdata/drift/assembly", filepath.Join(w.dir, "cdk.out"))
			inv := detect(t, "noecho-drift.json", 1)
			// Streamed while cdkd runs: redacted only if the assembly was
			// read before.
			inv.Stderr = "NoEchoParam2FCCC8BD (AWS::SSM::Parameter): Value differs (hunter2-noecho-v1)\n"
			w.stub(inv)
			inputs := withInputs(all, "issue", "true")
			if app != "" {
				inputs["app"] = app
			}
			res := w.run(inputs)
			assert.Equal(t, res.code, 1, res.stdout)
			assertHidden(t, res.channels, sampleSecrets...)
			for _, s := range []string{res.summary, onlyCheckRun(t, w.gh).Output.Summary, w.gh.Issues()[0].Body} {
				assert.Assert(t, is.Contains(s, "`Value`: `***` → `***` · 🔒 NoEcho"), s)
				assert.Assert(t, is.Contains(s, "`DisplayName`: `\"fixture-topic-v1\"` → `\"prefix-***-suffix\"`"), s)
				assert.Assert(t, !strings.Contains(s, "Values hidden"), s)
			}
		})
	}
}

// A check that checked no stack is incomplete; one that compared nothing
// because cdkd never checks those resources by design is clean. Neither
// closes the tracking issue: neither looked at the drift it records.
func TestDriftNothingCheckedKeepsTheIssueOpen(t *testing.T) {
	w := newDriftWorkspace(t)
	stub := w.stub(detect(t, "drifted.json", 1), detect(t, "empty.json", 0), detect(t, "unsupported.json", 0))
	inputs := withAssembly(t, withInputs(all, "issue", "true", "fail-on-drift", "false"))
	assert.Equal(t, w.run(inputs).code, 0)
	assert.Assert(t, is.Len(w.gh.Issues(), 1))

	res := w.run(inputs)
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "incomplete")
	assert.Equal(t, res.outputs["failure-reason"], "incomplete")
	const why = "cdkd checked no stack — check stacks/all, state-bucket, state-prefix and stack-region"
	assert.Assert(t, is.Contains(res.summary, "⚠️ **Nothing checked:** "+why))
	assert.Assert(t, !strings.Contains(res.summary, "No drift"), res.summary)
	run := w.gh.CheckRuns()[1]
	assert.Equal(t, run.Conclusion, "action_required")
	assert.Equal(t, run.Output.Title, "Nothing checked: cdkd checked no stack")
	issue := w.gh.Issues()[0]
	assert.Equal(t, issue.State, "open", "nothing checked is not clean")
	assert.Equal(t, issue.Title, "cdkd drift: Nothing checked: cdkd checked no stack")
	assert.Assert(t, is.Contains(issue.Body, "The latest check compared nothing."))
	assert.Assert(t, is.Contains(issue.Body, why))

	res = w.run(inputs)
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "clean")
	issue = w.gh.Issues()[0]
	assert.Equal(t, issue.State, "open", "a check that compared nothing does not close the issue")
	assert.Equal(t, issue.Title, "cdkd drift: No drift detected, but nothing was compared")
	assert.Assert(t, is.Contains(issue.Body, "The latest check compared nothing"))
	assert.Assert(t, is.Len(w.gh.Comments(owner, repo, issue.Number), 0), "no closing comment")
	stub.AssertAllUsed(t)
}

// A run that ends in an error leaves drifted-count and not-compared-count
// empty, and drift-status error, whichever detection failed.
func TestDriftErrorOutputs(t *testing.T) {
	accept := detect(t, "clean.json", 0, "--accept", "-y")
	tests := []struct {
		name   string
		invs   []cdkdtest.Invocation
		inputs map[string]string
	}{
		{name: "exit 1 with a report and no drift", invs: []cdkdtest.Invocation{detect(t, "clean.json", 1)}, inputs: all},
		{name: "the detection after an accept crashed",
			invs:   []cdkdtest.Invocation{detect(t, "partial.json", 1), accept, stderrFile(t, detect(t, "", 1), "crash.stderr")},
			inputs: withInputs(all, "drift-resolution", "accept")},
		{name: "the detection after an accept is unusable",
			invs:   []cdkdtest.Invocation{detect(t, "partial.json", 1), accept, detect(t, "clean.json", 1)},
			inputs: withInputs(all, "drift-resolution", "accept")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newDriftWorkspace(t)
			stub := w.stub(tc.invs...)
			res := w.run(tc.inputs)
			stub.AssertAllUsed(t)
			assert.Equal(t, res.code, 3, res.stdout)
			assert.Equal(t, res.outputs["failure-reason"], "cdkd-failed")
			assert.Equal(t, res.outputs["drift-status"], "error")
			for _, name := range []string{"drifted-count", "not-compared-count"} {
				v, ok := res.outputs[name]
				assert.Assert(t, ok, "%s is written", name)
				assert.Equal(t, v, "", name)
			}
			assert.Equal(t, onlyCheckRun(t, w.gh).Conclusion, "failure")
		})
	}
}

// The command line: stacks, stack-region, state and role inputs; never
// --verbose; CDKD_NO_LIVE=1.
func TestDriftArguments(t *testing.T) {
	w := newDriftWorkspace(t)
	stub := w.stub(cdkdtest.Invocation{
		Args: []string{"drift", "StackA", "StackB", "--json", "--stack-region", "eu-west-1",
			"--state-bucket", "my-state", "--state-prefix", "infra", "--role-arn", "arn:aws:iam::123456789012:role/drift"},
		Env:        map[string]string{"CDKD_NO_LIVE": "1"},
		StdoutFile: abs(t, "testdata/drift/clean.json"),
	})
	res := w.run(map[string]string{"stacks": "StackA StackB", "stack-region": "eu-west-1", "state-bucket": "my-state",
		"state-prefix": "infra", "role-arn": "arn:aws:iam::123456789012:role/drift", "check-run": "false"})
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	for _, c := range stub.Calls(t) {
		for _, a := range c.Args {
			assert.Assert(t, a != "--verbose")
		}
	}
	assert.Assert(t, is.Len(w.gh.CheckRuns(), 0))
}

// Local mode prints the report and calls no API.
func TestDriftLocalMode(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "drifted.json", 1))
	res := w.run(withInputs(all, "issue", "true"), "GITHUB_ACTIONS=false")
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "🔴 **Drift detected:**"))
	assert.Equal(t, len(w.gh.Requests()), 0)
}

func TestMainDriftFixturesAreReadable(t *testing.T) {
	entries, err := os.ReadDir("testdata/drift")
	assert.NilError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			var v any
			assert.NilError(t, json.Unmarshal([]byte(readFile(t, "testdata/drift/"+e.Name())), &v), e.Name())
		}
	}
}

// Labels keep two drift checks apart: a check run and a tracking issue each.
func TestDriftLabels(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "drifted.json", 1), detect(t, "drifted-v2.json", 1), detect(t, "clean.json", 0))
	for _, label := range []string{"prod", "staging"} {
		res := w.run(withInputs(all, "label", label, "issue", "true", "fail-on-drift", "false"))
		assert.Equal(t, res.code, 0, res.stdout)
	}
	issues := w.gh.Issues()
	assert.Assert(t, is.Len(issues, 2))
	assert.Equal(t, issues[0].Title, "cdkd drift (prod): 3 resources drifted")
	assert.Equal(t, issues[1].Title, "cdkd drift (staging): 1 resource drifted")
	res := w.run(withInputs(all, "label", "prod", "issue", "true"))
	assert.Equal(t, res.code, 0, res.stdout)
	issues = w.gh.Issues()
	assert.Equal(t, issues[0].State, "closed", "prod is clean")
	assert.Equal(t, issues[1].State, "open", "staging is not touched by prod's run")
	runs := w.gh.CheckRuns()
	assert.Equal(t, runs[0].Name, "cdkd drift (prod)")
	assert.Equal(t, runs[1].Name, "cdkd drift (staging)")
}

func TestDriftMissingCdkd(t *testing.T) {
	w := newDriftWorkspace(t)
	res := w.run(withInputs(all, "cdkd-path", filepath.Join(w.dir, "no-such-cdkd")))
	// A wrong cdkd-path is bad input: nothing ran, so nothing is posted and
	// no drift status is claimed; the summary and the log say why.
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Equal(t, res.outputs["drift-status"], "")
	assert.Assert(t, is.Contains(res.summary, "cdkd not found"))
	assert.Equal(t, w.gh.Writes(), 0)
}

// issue-labels set after the tracking issue was opened (or a label removed
// by hand) are added to it; labels someone added stay.
func TestDriftIssueLabelsKeptInSync(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "drifted.json", 1), detect(t, "drifted.json", 1), detect(t, "drifted.json", 1))
	inputs := withAssembly(t, withInputs(all, "issue", "true", "fail-on-drift", "false"))
	assert.Equal(t, w.run(inputs).code, 0)
	issues := w.gh.Issues()
	var number int
	for _, i := range issues {
		if i.Login == githubtest.DefaultLogin {
			number = i.Number
			assert.Equal(t, len(i.Labels), 0)
		}
	}
	assert.Assert(t, number != 0)

	inputs["issue-labels"] = "infra drift, ops\nneeds triage"
	assert.Equal(t, w.run(inputs).code, 0)
	labels := func() []string {
		for _, i := range w.gh.Issues() {
			if i.Number == number {
				return i.Labels
			}
		}
		return nil
	}
	assert.DeepEqual(t, labels(), []string{"infra drift", "ops", "needs triage"})

	writes := issueWrites(w.gh)
	assert.Equal(t, w.run(inputs).code, 0)
	assert.Equal(t, issueWrites(w.gh), writes, "labels in sync and nothing changed: nothing posted")
}
