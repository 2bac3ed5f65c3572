package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// Issue 15, item 1: "by design" is said of one case only, a position whose
// state value is a NoEcho custom-resource response stored as "***". A
// NoEcho parameter's position is real drift with its fix; a hidden position
// whose source the assembly does not show is said to be undecided.
func TestDriftHiddenNoteSaysTheCase(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detectStack(t, "hidden-cases.json", 1, "StackE"))
	res := w.run(map[string]string{"stacks": "StackE", "app": abs(t, "testdata/drift/assembly-custom"), "issue": "true"})
	assert.Equal(t, res.code, 1, res.stdout)
	for _, s := range []string{res.summary, onlyCheckRun(t, w.gh).Output.Summary, w.gh.Issues()[0].Body} {
		assert.Assert(t, is.Contains(s, "🔒 **Drifts on every run by design:** `TokenParam.Value`. The state value there is a NoEcho custom-resource response"), s)
		assert.Assert(t, is.Contains(s, "🔒 **Real drift at a NoEcho parameter's position** (values hidden): `DbParam.Value`"), s)
		assert.Assert(t, is.Contains(s, "🔒 **Hidden drift, cause undecided** (values hidden): `OddParam.Value`"), s)
		assert.Equal(t, strings.Count(s, "by design:"), 1, "by design is said of the custom-resource response only")
	}
	assertHidden(t, res.channels, "live-token-value-1", "changed-by-hand-1", "odd-live-value-1", "hunter2-noecho-v1")
}

// Issue 15, item 5: a revert runs cdkd's --dry-run plan first and shows its
// warnings; a drifted resource cdkd warns would be written back with a
// token literal (sample 86's line) is not reverted unless
// drift-allow-token-overwrite allows it.
func TestDriftRevertRefusesTokenLiteralOverwrite(t *testing.T) {
	plan := func(t *testing.T) string {
		return readFile(t, "testdata/drift/secure-drifted.json") +
			"\nPlan (--revert): push cdkd state values back into AWS for StackD (us-east-1):\n" +
			"  → provider.update on SecureTopic (AWS::SNS::Topic): revert 1 property path\n" +
			"    FifoTopic: true -> false\n" +
			"  ! SecureTopic (AWS::SNS::Topic): this resource has no observed-capture baseline; the revert LEAVES 1 AWS-authored value untouched: ArchivePolicy\n"
	}
	t.Run("refused by default", func(t *testing.T) {
		w := newDriftWorkspace(t)
		dry := detectStack(t, "", 0, "StackD", "--revert", "--dry-run")
		dry.Stdout = plan(t)
		stub := w.stub(stderrFile(t, detectStack(t, "secure-drifted.json", 1, "StackD"), "ssmsecure.stderr"), dry)
		res := w.run(map[string]string{"stacks": "StackD", "drift-resolution": "revert"})
		assert.Equal(t, res.code, 3, res.stdout)
		stub.AssertAllUsed(t)
		for _, c := range stub.Calls(t) {
			assert.Assert(t, !slices.Contains(c.Args, "-y"), "nothing was reverted: %v", c.Args)
		}
		assert.Equal(t, res.outputs["failure-reason"], "resolution-failed")
		assert.Equal(t, res.outputs["drift-status"], "drifted")
		assert.Equal(t, onlyCheckRun(t, w.gh).Output.Title, "1 resource drifted · revert refused")
		for _, want := range []string{
			"🚫 **revert refused** for 1 resource: a revert would overwrite a live value with a `{{resolve:ssm-secure:…}}` token literal, or nothing rules that out.",
			"🚫 **Not reverted (refused by cdkd-action)** (1): a revert would write a `{{resolve:ssm-secure:…}}` token literal over the value AWS holds, or nothing shows that it would not (each resource says which), and cdkd reverts a whole stack at a time. Set `drift-allow-token-overwrite: true` to revert anyway.",
			"- `StackD/SecureTopic` · `AWS::SNS::Topic`: whether the token is its property's whole value (a `--revert` leaves it unchanged) or embedded in a longer string (a `--revert` overwrites the value AWS holds) is **unknown**: the state record was not read",
			"⚠️ **cdkd's plan warns** (from `--dry-run`, before anything was reverted):",
			"LEAVES 1 AWS-authored value untouched: ArchivePolicy",
		} {
			assert.Assert(t, is.Contains(res.summary, want), res.summary)
		}
		assert.Assert(t, !strings.Contains(res.summary, "nothing to do"), res.summary)
		assert.Assert(t, is.Contains(res.stdout, "::error::cdkd drift --revert: refused for 1 resource(s): a revert would overwrite a live value with an ssm-secure token literal, or nothing rules that out"))
	})
	t.Run("allowed by the input", func(t *testing.T) {
		w := newDriftWorkspace(t)
		dry := detectStack(t, "", 0, "StackD", "--revert", "--dry-run")
		dry.Stdout = plan(t)
		revert := detectStack(t, "", 0, "StackD", "--revert", "-y")
		revert.Stdout = readFile(t, "testdata/drift/secure-drifted.json") +
			"\n  ✓ StackD/SecureTopic (AWS::SNS::Topic): reverted.\n\nRevert summary: 1 reverted.\n"
		stub := w.stub(stderrFile(t, detectStack(t, "secure-drifted.json", 1, "StackD"), "ssmsecure.stderr"), dry, revert,
			detectStack(t, "ssmsecure.json", 0, "StackD"))
		res := w.run(map[string]string{"stacks": "StackD", "drift-resolution": "revert", "drift-allow-token-overwrite": "true"})
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Assert(t, is.Contains(res.summary, "✅ **Reverted** (1)\n- `StackD/SecureTopic` · `AWS::SNS::Topic`"), res.summary)
		assert.Assert(t, is.Contains(res.summary, "⚠️ **cdkd's plan warns**"), "the warnings show even when allowed")
	})
	// Issue 21, item 7: the state record shows the token is the property's
	// whole value, which a revert leaves unchanged: cdkd's two-case line
	// refuses nothing.
	t.Run("the whole value, from the state record", func(t *testing.T) {
		bucket := randomBucket(t)
		w := newDriftWorkspace(t)
		w.useAWS(stateAWS(t, bucket, map[string]string{"StackD": "state-stackD.json"}))
		dry := detectStack(t, "", 0, "StackD", "--state-bucket", bucket, "--revert", "--dry-run")
		dry.Stdout = plan(t)
		revert := detectStack(t, "", 0, "StackD", "--state-bucket", bucket, "--revert", "-y")
		revert.Stdout = readFile(t, "testdata/drift/secure-drifted.json") +
			"\n  ✓ StackD/SecureTopic (AWS::SNS::Topic): reverted.\n\nRevert summary: 1 reverted.\n"
		stub := w.stub(stderrFile(t, detectStack(t, "secure-drifted.json", 1, "StackD", "--state-bucket", bucket), "ssmsecure.stderr"), dry, revert,
			detectStack(t, "ssmsecure.json", 0, "StackD", "--state-bucket", bucket))
		res := w.run(map[string]string{"stacks": "StackD", "drift-resolution": "revert", "state-bucket": bucket})
		assert.Equal(t, res.code, 0, res.stdout)
		stub.AssertAllUsed(t)
		assert.Assert(t, is.Contains(res.summary, "✅ **Reverted** (1)\n- `StackD/SecureTopic` · `AWS::SNS::Topic`"), res.summary)
		assert.Assert(t, !strings.Contains(res.summary, "refused"), res.summary)
		assert.Assert(t, !strings.Contains(res.summary, "make the token the property's whole value"), res.summary)
	})
}

// Issue 15, item 6: a group cdkd's JSON carries that this version does not
// know (cdkd's "masked" group, in the seed) is shown as its own section and never
// changes the status.
func TestDriftHiddenGroupIsKept(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "masked-group.json", 0))
	res := w.run(withAssembly(t, all))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "clean")
	assert.Equal(t, res.outputs["drifted-count"], "0")
	assert.Equal(t, onlyCheckRun(t, w.gh).Conclusion, "success")
	assert.Assert(t, is.Contains(res.summary, "**🔒 Hidden by cdkd (1)** · cdkd reports these positions in a group of their own"), res.summary)
	assert.Assert(t, is.Contains(res.summary, "- `NoEchoParam2FCCC8BD` · `AWS::SSM::Parameter` · `Value`"), res.summary)
	assert.Assert(t, is.Contains(readFile(t, res.outputs["report-json"]), `"otherGroups"`))
}

// Issue 9, item 14: a failed check does not erase the tracking issue's list
// of drifted resources: it says the latest run failed and why, and keeps
// the last known drift until a check that completes replaces it.
func TestDriftErrorKeepsTheIssueRecord(t *testing.T) {
	w := newDriftWorkspace(t)
	crash := stderrFile(t, detect(t, "", 1), "crash.stderr")
	stub := w.stub(detect(t, "drifted.json", 1), crash, crash, detect(t, "drifted-v2.json", 1))
	inputs := withAssembly(t, withInputs(all, "issue", "true", "fail-on-drift", "false"))
	assert.Equal(t, w.run(inputs).code, 0)
	for run := 2; run <= 3; run++ {
		res := w.run(inputs)
		assert.Equal(t, res.code, 3, res.stdout)
		issue := w.gh.Issues()[0]
		assert.Equal(t, issue.State, "open")
		assert.Assert(t, is.Contains(issue.Body, "The latest check could not run"), "run %d", run)
		assert.Assert(t, is.Contains(issue.Body, "ECONNREFUSED"), "run %d: why it failed", run)
		assert.Assert(t, is.Contains(issue.Body, "**Last known drift**"), "run %d", run)
		assert.Assert(t, is.Contains(issue.Body, "`VisibilityTimeout`: `30` → `99`"), "run %d: the record is kept:\n%s", run, issue.Body)
		assert.Assert(t, is.Contains(issue.Body, "🔴 **Drift detected:** 3 resources drifted"), "run %d", run)
	}
	assert.Equal(t, w.run(inputs).code, 0)
	issue := w.gh.Issues()[0]
	assert.Assert(t, !strings.Contains(issue.Body, "Last known drift"), "a completed check replaces the record")
	assert.Assert(t, !strings.Contains(issue.Body, "VisibilityTimeout"))
	assert.Assert(t, is.Contains(issue.Body, "changed-again"))
	stub.AssertAllUsed(t)
}

// Issue 9, item 16: when a run both drifts and refuses, cdkd exits 1 (drift
// outranks), so the exit code says nothing about the refusal: cdkd's own
// line does, and its reason is shown. Without such a line, the report
// never claims the exit code says nothing was refused.
func TestDriftCauseFromLogWhenItAlsoDrifts(t *testing.T) {
	t.Run("cdkd's line names the refusal", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.stub(stderrFile(t, detectStack(t, "drifted-refused.json", 1, "StackC"), "refused.stderr"))
		res := w.run(map[string]string{"stacks": "StackC", "fail-on-drift": "false"})
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "drifted")
		assert.Assert(t, is.Contains(res.summary, "🚫 **Refused** (1)"), res.summary)
		assert.Assert(t, is.Contains(res.summary, "- `XrSecretParam` · `AWS::SSM::Parameter` · cause from cdkd's log"))
		assert.Assert(t, is.Contains(res.summary, "carries no region of its own"))
		assert.Assert(t, !strings.Contains(res.summary, "nothing was refused"), res.summary)
	})
	t.Run("no line: no claim the evidence contradicts", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.stub(detectStack(t, "drifted-refused.json", 1, "StackC"))
		res := w.run(map[string]string{"stacks": "StackC", "fail-on-drift": "false"})
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Assert(t, is.Contains(res.summary, "❔ **Cause not reported** (1)"), res.summary)
		assert.Assert(t, is.Contains(res.summary, "drift outranks a refused or failed comparison, so the exit code says nothing about these"))
		assert.Assert(t, !strings.Contains(res.summary, "nothing was refused"), res.summary)
	})
}

// Issue 15, item 4, the seed's side: cdkd puts the plan and the per-resource
// lines on stderr under --json. They are read from there too, and the
// plan's plaintext values, a live value the redactor cannot know among
// them, never reach the log as it streams.
func TestDriftResolutionTextOnStderr(t *testing.T) {
	w := newDriftWorkspace(t)
	planText := "Plan (--revert): push cdkd state values back into AWS for StackA (us-east-1):\n" +
		"  → provider.update on NoEchoParam2FCCC8BD (AWS::SSM::Parameter): revert 1 property path\n" +
		"    Value: oob-noecho-value -> hunter2-noecho-v1\n"
	dry := detectStack(t, "noecho-oob.json", 0, "StackA", "--revert", "--dry-run")
	dry.Stderr = planText
	revert := detectStack(t, "noecho-oob.json", 0, "StackA", "--revert", "-y")
	revert.Stderr = planText + "  ✓ StackA/NoEchoParam2FCCC8BD (AWS::SSM::Parameter): reverted.\nRevert summary: 1 reverted.\n"
	stub := w.stub(detectStack(t, "noecho-oob.json", 1, "StackA"), dry, revert, detectStack(t, "clean.json", 0, "StackA"))
	res := w.run(withAssembly(t, map[string]string{"stacks": "StackA", "drift-resolution": "revert"}))
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Assert(t, is.Contains(res.summary, "✅ **Reverted** (1)\n- `StackA/NoEchoParam2FCCC8BD` · `AWS::SSM::Parameter`"), res.summary)
	assert.Assert(t, is.Contains(res.summary, "> Revert summary: 1 reverted."))
	assert.Assert(t, is.Contains(res.stdout, "    Value: *** -> ***"), res.stdout)
	assertHidden(t, res.channels, append(sampleSecrets, "oob-noecho-value")...)
}

// Issue 33, item 6: a stack with a position in cdkd drift's group of
// hidden NoEcho values (seed 000: such a position is reported "in its own
// group", neither the stored nor the live value printed) is not "fully
// checked" with a ✅: nothing was compared at that position. It still
// changes no status.
func TestHiddenPositionIsNotFullyChecked(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "masked-group.json", 0))
	res := w.run(withAssembly(t, all))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "clean")
	for where, text := range map[string]string{"summary": res.summary, "check run": onlyCheckRun(t, w.gh).Output.Summary} {
		assert.Assert(t, !strings.Contains(text, "3 of 3 resources fully checked") && !strings.Contains(text, "2 of 2 resources fully checked"), "%s: %s", where, text)
		assert.Assert(t, !strings.Contains(text, "✅ <b>StackA</b>") && !strings.Contains(text, "✅ **No drift:** `StackA`"), "%s: %s", where, text)
		assert.Assert(t, is.Contains(text, "⚠️ <b>StackA</b>"), where)
		assert.Assert(t, is.Contains(text, "2 of 3 resources fully checked (1 only partially compared)"), where)
		assert.Assert(t, is.Contains(text, "**🔒 Hidden by cdkd (1)**"), where)
	}
}

// Issue 33, item 6: a stack's last known drift is replaced only by a check
// that compared that stack. A night that checked another stack leaves the
// drifted one's record, and the issue, open; a check of both closes it.
func TestDriftIssueKeepsAStackUntilItIsComparedAgain(t *testing.T) {
	w := newDriftWorkspace(t)
	onlyB := filepath.Join(t.TempDir(), "stackB-clean.json")
	writeFile(t, onlyB, `[{"stack":"StackB","region":"us-east-1","drifted":[],"clean":[{"logicalId":"ImportedTopic","type":"AWS::SNS::Topic","referencesUnresolved":false}],"notSupported":[],"skipped":[],"notCompared":[]}]`)
	stub := w.stub(detect(t, "drifted.json", 1),
		cdkdtest.Invocation{Args: []string{"drift", "StackB", "--json"}, Env: map[string]string{"CDKD_NO_LIVE": "1"}, StdoutFile: onlyB},
		detect(t, "clean.json", 0))
	inputs := withAssembly(t, withInputs(all, "issue", "true", "fail-on-drift", "false"))
	assert.Equal(t, w.run(inputs).code, 0)
	assert.Equal(t, w.gh.Issues()[0].State, "open")

	onlyStackB := withAssembly(t, map[string]string{"stacks": "StackB", "issue": "true", "fail-on-drift": "false"})
	res := w.run(onlyStackB)
	assert.Equal(t, res.code, 0, lastLines(res.stdout, 20))
	issue := w.gh.Issues()[0]
	assert.Equal(t, issue.State, "open", "StackA's drift was not compared again")
	assert.Equal(t, issue.Title, "cdkd drift: No drift in what was compared; last known drift kept for 1 stack",
		"an open issue of drift is not titled \"No drift\"")
	assert.Assert(t, !strings.Contains(issue.Body, "This issue is closed"), issue.Body)
	latest, kept, found := strings.Cut(issue.Body, "**Last known drift**")
	assert.Assert(t, found, issue.Body)
	assert.Assert(t, !strings.Contains(latest, "Drift detected"), latest)
	assert.Assert(t, is.Contains(kept, "<b>StackA</b>"), kept)
	assert.Assert(t, is.Contains(kept, "`Queue4A7E3555`"), kept)

	assert.Equal(t, w.run(inputs).code, 0)
	issue = w.gh.Issues()[0]
	assert.Equal(t, issue.State, "closed", "both stacks compared without drift")
	assert.Assert(t, !strings.Contains(issue.Body, "Last known drift"))
	stub.AssertAllUsed(t)
}
