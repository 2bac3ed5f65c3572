package main

// Drift against the state bucket: the references in state records are
// resolved and redacted, and the records tell apart what cdkd prints alike.

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The {{resolve:...}} references in the state records are resolved and
// their values redacted even without an assembly: before cdkd runs for the
// stacks the input names, and after detection for the stacks cdkd
// reported, so later cdkd runs (a resolution) and everything rendered are
// redacted. Today's cdkd prints a secret-named queue's URL on stderr.
func TestDriftStateReferences(t *testing.T) {
	bucket := randomBucket(t)
	aws := stateAWS(t, bucket, map[string]string{"StackC": "state-stackC.json"})

	t.Run("named stack, before cdkd runs", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.useAWS(aws)
		inv := stderrFile(t, detectStack(t, "", 1, "StackC", "--state-bucket", bucket), "queue-url.stderr")
		inv.Stderr = "Error: read failed for http://localhost:4566/000000000000/s3cr3t-pw-from-sm\n"
		w.stub(inv)
		res := w.run(map[string]string{"stacks": "StackC", "state-bucket": bucket, "issue": "true"})
		assert.Equal(t, res.code, 3, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "error")
		assertHidden(t, res.channels, sampleSecrets...)
		assert.Assert(t, is.Contains(res.summary, "read failed for"), "cdkd's reason is shown, redacted")
		assert.Assert(t, !strings.Contains(res.stdout, "::warning::"), res.stdout)
	})
	t.Run("all stacks, after detection", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.useAWS(aws)
		accept := stderrFile(t, detect(t, "", 0, "--state-bucket", bucket, "--accept", "-y"), "queue-url.stderr")
		w.stub(detect(t, "drifted-stackC.json", 1, "--state-bucket", bucket), accept, detect(t, "drifted-stackC.json", 1, "--state-bucket", bucket))
		res := w.run(withInputs(all, "state-bucket", bucket, "drift-resolution", "accept", "fail-on-drift", "false"))
		assert.Equal(t, res.code, 0, res.stdout)
		assertHidden(t, res.channels, sampleSecrets...)
		assert.Assert(t, is.Contains(res.stdout, "QueueUrl=http://localhost:4566/000000000000/***"), "the accept's stderr was logged, redacted")
	})
}

// stateAWS starts the AWS emulator holding the given state records under
// cdkd/{stack}/us-east-1/state.json in bucket and the secrets their
// references name (my-secret, /fixture/secure-value: the sample data's).
func stateAWS(t *testing.T, bucket string, records map[string]string) *awsEmulator {
	t.Helper()
	e := startAWS(t)
	objects := map[string]string{}
	for stack, file := range records {
		objects["cdkd/"+stack+"/us-east-1/state.json"] = readFile(t, "testdata/drift/"+file)
	}
	e.createBucket(t, bucket, objects)
	e.secret(t, "my-secret", `{"password":"s3cr3t-pw-from-sm"}`)
	e.parameter(t, "/fixture/secure-value", "securepw1", true)
	return e
}

func randomBucket(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, err := rand.Read(b)
	assert.NilError(t, err)
	return "cdkd-state-" + hex.EncodeToString(b)
}

// Today's cdkd prints a refused reference and an ssm-secure one the same
// way; the state record tells them apart, per resource.
func TestDriftCausesFromState(t *testing.T) {
	bucket := randomBucket(t)
	aws := stateAWS(t, bucket, map[string]string{"StackC": "state-stackC.json", "StackD": "state-stackD.json", "StackM": "state-stackM.json"})

	t.Run("both shapes in one run, exit 2", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.useAWS(aws)
		w.stub(detect(t, "mixed.json", 2, "--state-bucket", bucket))
		res := w.run(withInputs(all, "state-bucket", bucket))
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "incomplete")
		assert.Assert(t, is.Contains(res.summary, "🚫 **Refused** (1)"))
		assert.Assert(t, is.Contains(res.summary, "- `XrSecretParam` · `AWS::SSM::Parameter` · cdkd reported no cause; its state record holds no ssm-secure token and cdkd exited 2, so it is counted as refused"))
		assert.Assert(t, is.Contains(res.summary, "🔒 **Unresolved token** (1)"))
		assert.Assert(t, is.Contains(res.summary, "- `SecureTopic` · `AWS::SNS::Topic` · cdkd reported no cause; its state record holds an ssm-secure token"))
		assert.Assert(t, !strings.Contains(res.summary, "inferred from cdkd's exit code"))
		assert.Assert(t, !strings.Contains(res.stdout, "::warning::"), res.stdout)
		assert.Equal(t, onlyCheckRun(t, w.gh).Output.Title, "Could not check everything: 1 resource not checked")
	})
	t.Run("refused only", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.useAWS(aws)
		w.stub(detectStack(t, "refused.json", 2, "StackC", "--state-bucket", bucket))
		res := w.run(map[string]string{"stacks": "StackC", "state-bucket": bucket})
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "incomplete")
		assert.Assert(t, is.Contains(res.summary, "so it is counted as refused"))
	})
	t.Run("ssm-secure only", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.useAWS(aws)
		w.stub(detectStack(t, "ssmsecure.json", 0, "StackD", "--state-bucket", bucket))
		res := w.run(map[string]string{"stacks": "StackD", "state-bucket": bucket})
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "clean")
		assert.Assert(t, is.Contains(res.summary, "its state record holds an ssm-secure token"))
	})
	t.Run("no record for the stack: exit-code fallback, said so", func(t *testing.T) {
		w := newDriftWorkspace(t)
		w.useAWS(aws)
		// The role may not list the bucket: the stacks are then checked
		// against cdkd's report, which names StackC.
		aws.answerInstead(func(rw http.ResponseWriter, r *http.Request) bool {
			if r.URL.Query().Get("list-type") != "2" || !strings.HasPrefix(r.URL.Query().Get("prefix"), "elsewhere/") {
				return false
			}
			s3Error(rw, http.StatusForbidden, "AccessDenied", "Access Denied")
			return true
		})
		w.stub(detectStack(t, "refused.json", 2, "StackC", "--state-bucket", bucket, "--state-prefix", "elsewhere"))
		res := w.run(map[string]string{"stacks": "StackC", "state-bucket": bucket, "state-prefix": "elsewhere"})
		assert.Equal(t, res.code, 1, res.stdout)
		assert.Assert(t, is.Contains(res.summary, "The state records of StackC could not be read"))
		assert.Assert(t, is.Contains(res.stdout, "::warning::could not read the state of StackC"))
	})
}
