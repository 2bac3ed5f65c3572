package cdkd

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseLock(t *testing.T) {
	tests := []struct {
		name string
		line string
		want LockInfo
		ok   bool
	}{
		{
			name: "cdkd 0.284 (sample 31)",
			line: "  - stack:StackA: Failed to acquire lock for stack 'StackA' (us-east-1) after 4 attempts. Locked by: ci-job-42@runner-7, operation: deploy, expires in: 12m49s. Use --force-unlock to manually release the lock.",
			want: LockInfo{Stack: "StackA", Region: "us-east-1", Owner: "ci-job-42@runner-7", Operation: "deploy", ExpiresIn: "12m49s"},
			ok:   true,
		},
		{
			name: "coloured, error name, unquoted stack",
			line: "\x1b[31mLockError: Failed to acquire lock for stack MyStack (us-east-1) after 4 attempts. Locked by: alice@host-1:12345, operation: destroy, expires in 4m12s. If you are certain\x1b[0m",
			want: LockInfo{Stack: "MyStack", Region: "us-east-1", Owner: "alice@host-1:12345", Operation: "destroy", ExpiresIn: "4m12s"},
			ok:   true,
		},
		{
			name: "newer wording",
			line: "Could not acquire lock for stack 'Api' (eu-west-1) — held by bob@ci, operation: deploy, expires in ~12m. Wait for it to finish, or run 'cdkd force-unlock Api --stack-region eu-west-1'.",
			want: LockInfo{Stack: "Api", Region: "eu-west-1", Owner: "bob@ci", Operation: "deploy", ExpiresIn: "~12m"},
			ok:   true,
		},
		{
			name: "newer wording, no operation, expired",
			line: "Could not acquire lock for nested stack 'P~C' (us-east-1) — held by bob, expires already expired. Wait",
			want: LockInfo{Stack: "P~C", Region: "us-east-1", Owner: "bob", ExpiresIn: "already expired"},
			ok:   true,
		},
		{
			name: "holder unreadable",
			line: "Failed to acquire lock for stack 'S' (us-east-1) after 4 attempts. Lock exists but could not read lock info.",
			want: LockInfo{Stack: "S", Region: "us-east-1"},
			ok:   true,
		},
		{name: "retry progress is not contention", line: "Stack 'StackA' (us-east-1) is locked by ci-job-42@runner-7 (operation: deploy). Lock expires in 12m55s."},
		{name: "unrelated", line: "Error: connect ECONNREFUSED 127.0.0.1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseLock(tc.line)
			assert.Equal(t, ok, tc.ok)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestClassifyDeployLockSample(t *testing.T) {
	run := ClassifyDeploy(sample(t, "31-deploy-stackA-locked", "deploy", "StackA", "-y"))
	assert.Equal(t, run.ExitCode, 1)
	assert.Check(t, !run.OK && !run.Partial && !run.Cancelled)
	assert.DeepEqual(t, run.Lock, &LockInfo{Stack: "StackA", Region: "us-east-1", Owner: "ci-job-42@runner-7", Operation: "deploy", ExpiresIn: "12m49s"})
	assert.Equal(t, run.FailedNodes, 1)
	assert.DeepEqual(t, run.Failures, []StackFailure{{
		Stack:   "StackA",
		Message: "Failed to acquire lock for stack 'StackA' (us-east-1) after 4 attempts. Locked by: ci-job-42@runner-7, operation: deploy, expires in: 12m49s. Use --force-unlock to manually release the lock.",
	}})
	assert.Check(t, is.Contains(run.Reason, "stack StackA (us-east-1) is locked by ci-job-42@runner-7"))
	assert.Check(t, is.Contains(run.Reason, "cdkd force-unlock StackA --stack-region us-east-1"))
	assert.Check(t, is.Len(run.Summaries, 0))
}

func TestClassifyDeploySuccessSample(t *testing.T) {
	run := ClassifyDeploy(sample(t, "02-deploy-all", "deploy", "--all", "-y"))
	assert.Check(t, run.OK)
	assert.Equal(t, run.Reason, "")
	assert.Check(t, run.Lock == nil)
	assert.Check(t, is.Len(run.Failures, 0))
	assert.DeepEqual(t, run.Summaries, []StackSummary{
		{
			Stack: "StackA", Created: 7, Duration: "0.12s",
			Outputs: map[string]string{
				"BucketName":    "stacka-bucket83908e77",
				"TopicArn":      "arn:aws:sns:us-east-1:000000000000:StackA-TopicBFC7AF6E",
				"QueueUrl":      "http://localhost:4566/000000000000/fixture-queue-v1",
				"ExtraTopicArn": "arn:aws:sns:us-east-1:000000000000:StackA-ExtraTopic17EFD352",
			},
		},
		{Stack: "StackB", Created: 1, Duration: "0.02s", Outputs: map[string]string{"ImportedBucket": "stacka-bucket83908e77"}},
	})
}

func TestClassifyDeployExits(t *testing.T) {
	failed := []string{
		"Failed: stack:A: boom",
		"Error: 3 node(s) failed:",
		"  - stack:A: boom",
		"  - stack:B: AccessDenied: not allowed",
		"  - asset:abc123: upload failed",
	}
	tests := []struct {
		name  string
		res   Result
		check func(t *testing.T, run DeployRun)
	}{
		{
			name: "failures", res: Result{ExitCode: 1, StderrTail: failed},
			check: func(t *testing.T, run DeployRun) {
				assert.Equal(t, run.FailedNodes, 3)
				assert.DeepEqual(t, run.Failures, []StackFailure{
					{Stack: "A", Message: "boom"},
					{Stack: "B", Message: "AccessDenied: not allowed"},
					{Stack: "asset:abc123", Message: "upload failed"},
				})
				assert.Equal(t, run.Reason, "Error: 3 node(s) failed: stack:A: boom (and 2 more)")
				assert.Check(t, run.Lock == nil && !run.OK)
			},
		},
		{
			name: "partial", res: Result{ExitCode: 2, StderrTail: []string{"PartialFailureError: 1 resource(s) left unaddressed"}},
			check: func(t *testing.T, run DeployRun) {
				assert.Check(t, run.Partial && !run.OK)
				assert.Equal(t, run.Reason, "PartialFailureError: 1 resource(s) left unaddressed")
			},
		},
		{
			name: "second SIGINT", res: Result{ExitCode: 130},
			check: func(t *testing.T, run DeployRun) {
				assert.Check(t, run.Cancelled && !run.OK)
			},
		},
		{
			name: "cancelled, lock released", res: Result{ExitCode: 1, Cancelled: true, StderrTail: []string{"Interrupted: releasing lock for StackA"}},
			check: func(t *testing.T, run DeployRun) {
				assert.Check(t, run.Cancelled && !run.OK)
			},
		},
		{
			name: "silent failure", res: Result{ExitCode: 7},
			check: func(t *testing.T, run DeployRun) {
				assert.Equal(t, run.Reason, "cdkd exited with code 7 and printed no error message")
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := ClassifyDeploy(tc.res)
			assert.Equal(t, run.ExitCode, tc.res.ExitCode)
			tc.check(t, run)
		})
	}
}
