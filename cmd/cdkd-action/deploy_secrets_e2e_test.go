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
