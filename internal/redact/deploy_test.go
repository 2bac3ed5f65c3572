package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

func deployFixture() model.DeployResult {
	return model.DeployResult{
		Outcome:        model.OutcomeFailed,
		Title:          "cdkd deploy failed",
		Message:        "UPDATE_FAILED: tenant-queue-secret already exists",
		Warnings:       []string{"the queue tenant-queue-secret is public"},
		ComparisonNote: "compared with tenant-queue-secret",
		Comparison:     &model.Comparison{Items: []model.ItemDelta{{Stack: "App", Name: "tenant-queue-secret", Type: "AWS::SQS::Queue"}}},
		Destructive:    []model.DestructiveChange{{Stack: "App", LogicalID: "tenant-queue-secret", Type: "AWS::SQS::Queue", ForcedBy: []string{"QueueName tenant-queue-secret"}}},
		Lock:           &model.DeployLock{Stack: "App", Owner: "runner tenant-queue-secret", Unlock: "cdkd force-unlock App"},
		Stacks: []model.DeployedStack{{Stack: "App", Region: "us-east-1",
			Resources: []model.DeployedResource{{LogicalID: "Queue", Type: "AWS::SQS::Queue", Result: "failed", Error: "name tenant-queue-secret taken"}},
			Outputs: []model.StackOutput{
				{Name: "PwOut", Value: "pw-output-value"},                      // secret by position only
				{Name: "StageOut", Value: "https://sqs/1/tenant-queue-secret"}, // a secret by value
				{Name: "Flagged", Value: "flagged-value", Secret: true},        // marked by the reader
			}}},
		StackOutputs: map[string]map[string]string{"App": {"StageOut": "https://sqs/1/tenant-queue-secret"}},
		StderrTail:   []string{"Error: tenant-queue-secret", "exit 1"},
	}
}

func TestDeploy(t *testing.T) {
	tests := []struct {
		name  string
		stack string
		in    func(*secrets.Set) Input
		// pwOut is what the output only its position makes secret shows.
		pwOut string
	}{
		{name: "assembly", in: func(s *secrets.Set) Input { return Input{Set: s, Positions: loadAssembly(t)} }, pwOut: model.Hidden},
		// Without an assembly no output is secret by position; one the
		// reader marked stays hidden.
		{name: "no assembly", in: func(s *secrets.Set) Input { return Input{Set: s} }, pwOut: "pw-output-value"},
		{name: "a stack the assembly does not hold", stack: "Elsewhere", in: func(s *secrets.Set) Input { return Input{Set: s, Positions: loadAssembly(t)} }, pwOut: "pw-output-value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := redactSet()
			d := deployFixture()
			if tc.stack != "" {
				d.Stacks[0].Stack = tc.stack
			}
			Deploy(&d, tc.in(set))
			outs := d.Stacks[0].Outputs
			assert.Equal(t, outs[0].Value, tc.pwOut)
			assert.Equal(t, outs[0].Secret, tc.pwOut == model.Hidden)
			assert.Equal(t, outs[1].Value, "https://sqs/1/***")
			assert.Assert(t, !outs[1].Secret)
			assert.Equal(t, outs[2].Value, model.Hidden)
			b, err := json.Marshal(d)
			assert.NilError(t, err)
			assert.Assert(t, !strings.Contains(string(b), "tenant-queue-secret"), string(b))
			assert.Assert(t, !strings.Contains(string(b), "flagged-value"), string(b))
			// A value hidden by position is learned: nothing printed later
			// shows it.
			assert.Equal(t, set.Redact("log flagged-value"), "log ***")
			if tc.pwOut == model.Hidden {
				assert.Equal(t, set.Redact("log pw-output-value"), "log ***")
			}
			assert.DeepEqual(t, d.StackOutputs, map[string]map[string]string{"App": {"StageOut": "https://sqs/1/***"}})
			assert.DeepEqual(t, d.StderrTail, []string{"Error: ***", "exit 1"})
			assert.Equal(t, d.Lock.Unlock, "cdkd force-unlock App")

			// Redacting the result again (a saved report) changes nothing.
			once := string(b)
			Deploy(&d, Input{Set: set, Placed: true})
			b, err = json.Marshal(d)
			assert.NilError(t, err)
			assert.Equal(t, string(b), once)
		})
	}
}
