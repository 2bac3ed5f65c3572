package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// The hidden values are compared, not their "***" (issue 14.4):
// each test reviews a diff of a NoEcho position, then deploys a change set
// whose "***" read the same but hide other values.

// newSecretValue is a value only the NoEcho position knows secret.
const newSecretValue = "hunter2-noecho-v3"

// noEchoDiff is cdkd's diff of StackA's NoEcho parameter (the assembly in
// testdata/deploy places it): old → new in plaintext, as cdkd 0.284 prints it.
func noEchoDiff(t *testing.T, w *workspace, name, old, new string) string {
	t.Helper()
	change := map[string]any{"path": "Value", "oldValue": old, "newValue": new, "requiresReplacement": false}
	d := []map[string]any{{"stack": "StackA", "region": "us-east-1", "outputChanges": []any{}, "children": []any{},
		"changes": []any{map[string]any{"logicalId": "NoEchoParam2FCCC8BD", "changeType": "UPDATE", "resourceType": "AWS::SSM::Parameter",
			"propertyChanges": []any{change}}}}}
	b, err := json.Marshal(d)
	assert.NilError(t, err)
	path := filepath.Join(w.dir, name)
	writeFile(t, path, string(b))
	return path
}

func TestDeployComparesTheHiddenValues(t *testing.T) {
	const v1, v2 = "hunter2-noecho-v1", "hunter2-noecho-v2"
	tests := []struct {
		name               string
		reviewed, deployed [2]string // old, new
	}{
		{name: "v1 → v2 reviewed, v1 → v3 deployed", reviewed: [2]string{v1, v2}, deployed: [2]string{v1, newSecretValue}},
		{name: "another secret on the old side", reviewed: [2]string{v1, v2}, deployed: [2]string{newSecretValue, v2}},
		{name: "a literal *** where a secret was reviewed", reviewed: [2]string{v1, v2}, deployed: [2]string{v1, "***"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
			reviewed := noEchoDiff(t, w, "reviewed.json", tc.reviewed[0], tc.reviewed[1])
			deployed := noEchoDiff(t, w, "deployed.json", tc.deployed[0], tc.deployed[1])
			stub := w.stub(gateDiff(t, reviewed), gateDiff(t, deployed))
			h := w.review(reviewedSHA, diffInputs())
			assert.Assert(t, strings.HasPrefix(h.Digest, "v3:"), h.Digest)
			review := prComment(t, w.gh).Body
			res := w.run(deployInputs())
			assert.Equal(t, res.code, 1, res.stdout)
			stub.AssertAllUsed(t) // and so cdkd deploy never ran
			assert.Equal(t, res.outputs["failure-reason"], "diff-changed")
			assert.Equal(t, res.outputs["deployed"], "false")
			check := deployCheck(t, w.gh)
			assert.Equal(t, check.Output.Title, "Diff changed since review")
			// Both reports show the same "***": only the tokens differ.
			assert.Assert(t, is.Contains(review, "`***`"))
			assert.Assert(t, is.Contains(check.Output.Summary, "`Value`: reviewed `***` → `***`, now `***` → `***` (another hidden value)"), check.Output.Summary)
			assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
			for where, text := range map[string]string{"log": withoutMaskCommands(res.stdout), "summary": res.summary, "comment": prComment(t, w.gh).Body, "report JSON": readFile(t, res.outputs["report-json"])} {
				assert.Assert(t, !strings.Contains(text, newSecretValue), "the new secret leaked to the %s", where)
			}
		})
	}
}

func TestDeploySameHiddenValuesDeploys(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	diff := noEchoDiff(t, w, "diff.json", "hunter2-noecho-v1", "hunter2-noecho-v2")
	stub := w.stub(append([]cdkdtest.Invocation{gateDiff(t, diff), gateDiff(t, diff), deployInvocation(t, changedStacks(t, diff)...)},
		resultInvocationsOf(t, "events-StackA-run.json", changedStacks(t, diff)...)...)...)
	w.onPullRequest(reviewedSHA)
	review := w.run(diffInputs())
	assert.Equal(t, review.code, 0, review.stdout)
	// The diff's report JSON carries the tokens (an aggregate of shards
	// digests them as the run did), never the values.
	report := readFile(t, review.outputs["report-json"])
	assert.Assert(t, is.Contains(report, `"newMask":"fp1:`), report)
	assertHidden(t, review.channels, append(sampleSecrets, secretOutput)...)

	w.onPush()
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Equal(t, res.outputs["failure-reason"], "")
	assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
}

// withoutMaskCommands drops the ::add-mask:: lines: the runner hides them,
// they are how it learns what to mask.
func withoutMaskCommands(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.HasPrefix(l, "::add-mask::") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestDeployRefusesAnotherFingerprintKey(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
	diff := noEchoDiff(t, w, "diff.json", "hunter2-noecho-v1", "hunter2-noecho-v2")
	stub := w.stub(gateDiff(t, diff), gateDiff(t, diff))
	in := diffInputs()
	const reviewKey, deployKey = "pEmdc0HzWLCys+DLyrZJoUkS4b0EPoyQppfSch11n5E=", "37zbtWjWn9Ecoc73HS2k1gpHRZCZv7udfbPJ9a/0RNQ="
	in["fingerprint-key"] = reviewKey
	h := w.review(reviewedSHA, in)
	assert.Assert(t, strings.HasPrefix(h.Extra["fingerprintKeyId"], "k2:"), "the review records its key id: %v", h.Extra)
	res := w.run(deployInputs("fingerprint-key", deployKey))
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "fingerprint-key-mismatch")
	assert.Equal(t, res.outputs["deployed"], "false")
	assert.Assert(t, is.Contains(res.stdout, "with fingerprint key "+h.Extra["fingerprintKeyId"]+", and this deploy's key is k2:"))
	assert.Equal(t, deployCheck(t, w.gh).Output.Title, "Fingerprint key changed")
	for _, key := range []string{reviewKey, deployKey} {
		for where, text := range map[string]string{"log": withoutMaskCommands(res.stdout), "summary": res.summary, "comment": prComment(t, w.gh).Body} {
			assert.Assert(t, !strings.Contains(text, key), "the key itself is printed in the %s", where)
		}
	}
}

func TestDeployRefusesAnUnverifiableChangeSet(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	// No assembly: every value is hidden, its position unknown, and there
	// are more distinct ones than a run fingerprints.
	assert.NilError(t, os.RemoveAll(filepath.Join(w.dir, "cdk.out")))
	var changes []string
	for i := range 1250 {
		changes = append(changes, fmt.Sprintf(`{"logicalId":"Topic%04d","changeType":"UPDATE","resourceType":"AWS::SNS::Topic","propertyChanges":[{"path":"DisplayName","oldValue":"name-%d-a","newValue":"name-%d-b","requiresReplacement":false}]}`, i, i, i))
	}
	diff := filepath.Join(w.dir, "big.json")
	writeFile(t, diff, `[{"stack":"StackA","region":"us-east-1","changes":[`+strings.Join(changes, ",")+`],"outputChanges":[],"children":[]}]`)
	stub := w.stub(gateDiff(t, diff), gateDiff(t, diff))
	w.review(reviewedSHA, diffInputs())
	review := prComment(t, w.gh).Body
	assert.Assert(t, is.Contains(review, "cannot be verified"), "the review says a deploy of it will be refused")
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 1, res.stdout)
	stub.AssertAllUsed(t)
	assert.Equal(t, res.outputs["failure-reason"], "diff-unverifiable")
	assert.Equal(t, res.outputs["deployed"], "false")
	assert.Assert(t, is.Contains(res.stdout, "hides 2500 distinct values, more than the 2400 cdkd-action fingerprints"), "the refusal names the count and the bound")
	assert.Assert(t, is.Contains(res.stdout, "without the cloud assembly every value is hidden"), "and the cause")
	assert.Assert(t, !strings.Contains(res.stdout, "Pass the cloud assembly (app"), "no second, generic hint")
	assert.Equal(t, deployCheck(t, w.gh).Output.Title, "Change set cannot be verified")
}
