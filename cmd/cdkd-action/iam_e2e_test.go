package main

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// A deploy resolves every secret its templates reference, and reads the
// state, before it prints anything, even one the gate then refuses: its
// role needs the same reads as the diff's (docs/aws.md), and the emulator
// records them under the deploy role.
func TestDeployMasksEverySecretBeforeTheGate(t *testing.T) {
	f := startLeakAWS(t)
	w := newWorkspace(t)
	w.useAWS(f.awsEmulator)
	w.declare(leakSecrets...)
	w.onPush()
	stub := w.stub() // refused: cdkd never runs
	inputs, env := leakInputs(f, f.assemblyDir(t))
	inputs["command"] = "deploy"

	res := w.run(inputs, env...)
	assert.Equal(t, res.code, 1, "exit code; log:\n%s", runnermask.Simulate(res.stdout))
	assert.Equal(t, res.outputs["failure-reason"], "no-reviewed-diff")
	assertDiscovered(t, assertMasksFirst(t, res.stdout))
	stub.AssertAllUsed(t)
}

// A step run as a process of the binary is recorded under its role too:
// the IAM check covers the calls of every step, however it runs.
func TestProcessStepsAreRecordedUnderTheirRole(t *testing.T) {
	iamRecord.mu.Lock()
	before := len(iamRecord.calls) // an earlier run of this test (-count) recorded its own
	iamRecord.mu.Unlock()
	e := startAWS(t)
	bucket := "state-bucket-" + unique(t)
	e.createBucket(t, bucket, nil)
	env := append(e.env(), "AWS_MAX_ATTEMPTS=1", "INPUT_STATE-BUCKET="+bucket)
	res := runCLIBinary(t, actionBinary(t), t.TempDir(), env, "drift", "--all", "--fail-on-drift=false", "--resolve-secrets",
		"--from-json="+abs(t, "testdata/drift/drifted.json"), "--app="+abs(t, "testdata/drift/assembly"))
	assert.Equal(t, res.code, 0, res.stderr)

	var mine []iamCall
	iamRecord.mu.Lock()
	for _, c := range iamRecord.calls[before:] {
		if c.test == t.Name() {
			mine = append(mine, c)
		}
	}
	iamRecord.mu.Unlock()
	assert.Assert(t, len(mine) > 0, "the binary's calls reached the record")
	for _, c := range mine {
		assert.Equal(t, c.step.role, "drift", "%s: %s", c, c.step.why)
		assert.Equal(t, c.step.vars["STATE_BUCKET"], bucket)
	}
}
