package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// The rotation captures: real cdkd 0.284.40 against kumo, the secret
// rotated from rotOld to rotNew behind unchanged reference text
// (testdata/cdkd-kumo-rotation/README.md).
const (
	rotDir = "../../testdata/cdkd-kumo-rotation/"
	rotOld = "rot-pw-one"
	rotNew = "rot-pw-two"
)

// rotationAssembly is the sample assembly with its secret renamed to
// secret, so that tests running in parallel against the one emulator do
// not share it.
func rotationAssembly(t *testing.T, secret string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "assembly")
	copyDir(t, "../../testdata/cdkd-samples/assembly-v1", dir)
	for _, name := range []string{"StackA.template.json", "StackB.template.json"} {
		p := filepath.Join(dir, name)
		writeFile(t, p, strings.ReplaceAll(readFile(t, p), "secretsmanager:my-secret:", "secretsmanager:"+secret+":"))
	}
	return dir
}

// seedFingerprints records, as a deploy with value would have, the
// fingerprint of each position of StackA that reads the secret ref names.
func seedFingerprints(t *testing.T, b *fpBucket, ref, value string, positions ...fingerprint.Position) {
	t.Helper()
	key, err := fingerprint.ParseKey(testFingerprintKey) // the workspace's fingerprint-key
	assert.NilError(t, err)
	h, err := fingerprint.NewHasher(fingerprint.Options{Key: key, Params: e2eFingerprintParams})
	assert.NilError(t, err)
	rec := fingerprint.NewRecord("StackA", "us-east-1")
	rec.KeyID = h.KeyID()
	for _, p := range positions {
		f, err := h.Fingerprint(context.Background(), p, value)
		assert.NilError(t, err)
		rec.Positions[p.Key()] = fingerprint.Entry{Position: p, Source: ref, Fingerprint: f}
	}
	body, err := rec.Encode()
	assert.NilError(t, err)
	b.putObject(t, b.bucket, fingerprint.ObjectKey("", "StackA", "us-east-1"), string(body))
}

// A secret rotated behind an unchanged {{resolve:...}} reference: cdkd's
// diff says "no changes" and its deploy leaves the readers Unchanged
// (captures 02, 03), so the report must not say "will be updated". It says
// a deploy will NOT apply the value, and gives the remedy cdkd was seen to
// apply: --revert for the updatable parameter (captures 05, 06), new
// reference text for the queue's create-only name (captures 13-15; its
// --revert says "reverted" and changes nothing).
func TestRotatedReferenceIsNotAppliedByADeploy(t *testing.T) {
	b := startFingerprintBucket(t)
	name := "rot-secret-" + unique(t)
	ref := "{{resolve:secretsmanager:" + name + ":SecretString:password}}"
	app := rotationAssembly(t, name)
	b.isSecret(rotOld)
	b.secret(t, name, `{"password":"`+rotNew+`"}`)
	param := fingerprint.Position{Stack: "StackA", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "SecretRefParam4A819521", Path: "Value"}
	queue := fingerprint.Position{Stack: "StackA", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "SecretNamedQueue", Path: "QueueName"}
	seedFingerprints(t, b, ref, rotOld, param, queue)

	w := newDeployWorkspace(t, reviewedSHA)
	w.onPullRequest(reviewedSHA)
	stub := w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--all", "--json"}, StdoutFile: abs(t, rotDir+"02-diff-rotated-json.stdout")})
	res := w.run(map[string]string{"all": "true", "app": app, "state-bucket": b.bucket}, b.env()...)
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	var comment string
	for _, c := range w.gh.Comments(owner, repo, deployPR) {
		if strings.Contains(c.Body, `"kind":"diff"`) {
			comment = c.Body
		}
	}
	for _, want := range []string{
		"> ⚠️ **2 changed secret values will NOT be applied by a deploy:**",
		"`SecretRefParam4A819521`.`Value` · `" + ref + "` · (secret) → (secret) · **changed** — ⚠️ **a deploy will NOT apply it** (cdkd compares the reference text, which is unchanged); to apply it, run `cdkd drift StackA --revert`",
		"`SecretNamedQueue`.`QueueName` · `" + ref + "` · (secret) → (secret) · **changed** — ⚠️ **a deploy will NOT apply it** (cdkd compares the reference text, which is unchanged); to apply it, change the reference's text",
	} {
		assert.Assert(t, is.Contains(comment, want), comment)
	}
	assert.Assert(t, !strings.Contains(comment, "will be updated"), comment)
	assert.Assert(t, is.Contains(res.stdout, "::warning::StackA: the changed secret value at SecretRefParam4A819521.Value"))
	assert.Equal(t, res.outputs["has-changes"], "true", "a value cdkd cannot see changed")
	assertHidden(t, res.channels, rotOld, rotNew)
}

// The deploy after the rotation leaves the readers Unchanged (capture 16;
// its events record a run with no resource event, capture 17): the deploy
// report warns that it left each changed value behind, with the remedy,
// and the old fingerprints stay, so the next diff says so again.
func TestRotatedReferenceDeployWarns(t *testing.T) {
	b := startFingerprintBucket(t)
	name := "rot-secret-" + unique(t)
	ref := "{{resolve:secretsmanager:" + name + ":SecretString:password}}"
	app := rotationAssembly(t, name)
	b.secret(t, name, `{"password":"`+rotNew+`"}`)
	param := fingerprint.Position{Stack: "StackA", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "SecretRefParam4A819521", Path: "Value"}
	queue := fingerprint.Position{Stack: "StackA", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "SecretNamedQueue", Path: "QueueName"}
	seedFingerprints(t, b, ref, rotOld, param, queue)
	key := fingerprint.ObjectKey("", "StackA", "us-east-1")
	before, _ := b.awsEmulator.object(t, b.bucket, key)

	w := newDeployWorkspace(t, reviewedSHA)
	w.onPush()
	inv := func(file string, args ...string) cdkdtest.Invocation {
		return cdkdtest.Invocation{ArgsContain: args, StdoutFile: abs(t, rotDir+file)}
	}
	w.stub(
		inv("02-diff-rotated-json.stdout", "diff", "--all", "--json"),
		inv("16-deploy-rotated.stdout", "deploy", "StackA", "--exclusively", "-y"),
		inv("17-events-StackA-json.stdout", "events", "StackA", "--json"),
		inv("17-events-StackB-json.stdout", "events", "StackB", "--json"),
		inv("19-state-show-StackA-json.stdout", "state", "show", "StackA", "--json"),
		inv("19-state-show-StackB-json.stdout", "state", "show", "StackB", "--json"),
	)
	res := w.run(map[string]string{"command": "deploy", "all": "true", "app": app, "state-bucket": b.bucket, "require-reviewed-diff": "false"}, b.env()...)
	assert.Equal(t, res.code, 0, res.stdout)
	for _, want := range []string{
		"StackA: the changed secret value at SecretRefParam4A819521.Value (" + ref + ") is NOT applied by cdkd deploy: cdkd compares the reference text, which is unchanged; to apply it, run 'cdkd drift StackA --revert'",
		"StackA: the changed secret value at SecretNamedQueue.QueueName (" + ref + ") is NOT applied by cdkd deploy: cdkd compares the reference text, which is unchanged; to apply it, change the reference's text",
	} {
		assert.Assert(t, is.Contains(res.summary, want), res.summary)
	}
	after, _ := b.awsEmulator.object(t, b.bucket, key)
	assert.Equal(t, after, before, "a value the deploy did not apply keeps its old fingerprint")
	assertHidden(t, res.channels, rotNew)
}
