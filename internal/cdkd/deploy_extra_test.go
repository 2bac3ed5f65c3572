package cdkd

import (
	"os"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

func TestRunsSince(t *testing.T) {
	list, err := DecodeRuns([]byte(`{"stackName":"StackA","region":"us-east-1","runs":[
	  {"runId":"drift","command":"drift","startedAt":"2026-11-29T13:05:00.000Z"},
	  {"runId":"r3","command":"deploy","startedAt":"2026-11-29T13:00:00.000Z"},
	  {"runId":"r4","command":"deploy","startedAt":"2026-11-29T13:01:00.000Z"},
	  {"runId":"bad","command":"deploy","startedAt":"not a time"},
	  {"runId":"r1","command":"deploy","startedAt":"2026-11-29T12:59:18.548Z"}]}`))
	assert.NilError(t, err)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		assert.NilError(t, err)
		return v
	}
	tests := []struct {
		name    string
		command string
		since   time.Time
		want    string
	}{
		{name: "newest deploy after start, whatever the listing order", command: "deploy", since: at("2026-11-29T12:59:30Z"), want: "r4"},
		{name: "a run started exactly then counts", command: "deploy", since: at("2026-11-29T13:01:00Z"), want: "r4"},
		{name: "only older runs: none", command: "deploy", since: at("2026-11-29T13:02:00Z")},
		{name: "another command is not ours", command: "deploy", since: at("2026-11-29T13:04:00Z")},
		{name: "any command", since: at("2026-11-29T13:04:00Z"), want: "drift"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := list.Since(tc.command, tc.since)
			assert.Equal(t, ok, tc.want != "")
			assert.Equal(t, r.RunID, tc.want)
		})
	}
}

func TestSummarizeRunSample(t *testing.T) {
	b, err := os.ReadFile("testdata/samples/10-events-stackA-run-json.stdout")
	assert.NilError(t, err)
	events, err := DecodeEvents(b)
	assert.NilError(t, err)
	run := SummarizeRun(events)
	assert.Equal(t, run.Result, "SUCCEEDED")
	assert.DeepEqual(t, run.Counts, &Counts{Created: 7})
	assert.Equal(t, run.Duration, 121*time.Millisecond)
	assert.Equal(t, len(run.Resources), 7)
	first := run.Resources[0]
	assert.DeepEqual(t, first, ResourceOutcome{LogicalID: "Bucket83908E77", ResourceType: "AWS::S3::Bucket", Operation: "CREATE",
		Result: ResultCreated, Duration: 30 * time.Millisecond, HasDuration: true, PhysicalID: "stacka-bucket83908e77"})
}

func TestSummarizeRunFailure(t *testing.T) {
	events, err := DecodeEvents([]byte(`[
	 {"eventType":"RUN_STARTED","stackName":"S"},
	 {"eventType":"RESOURCE_STARTED","stackName":"S","operation":"UPDATE","logicalId":"Topic","resourceType":"AWS::SNS::Topic"},
	 {"eventType":"RESOURCE_STARTED","stackName":"S","operation":"DELETE","logicalId":"Old","resourceType":"AWS::SNS::Topic"},
	 {"eventType":"RESOURCE_STARTED","stackName":"S","operation":"CREATE","logicalId":"Queue","resourceType":"AWS::SQS::Queue"},
	 {"eventType":"RESOURCE_FAILED","stackName":"S","operation":"CREATE","logicalId":"Queue","durationMs":12.5,"error":{"name":"QueueAlreadyExists","message":"A queue already exists with the same name"}},
	 {"eventType":"RESOURCE_SUCCEEDED","stackName":"S","operation":"UPDATE","logicalId":"Topic","durationMs":3},
	 {"eventType":"RESOURCE_SKIPPED","stackName":"S","logicalId":"Param","resourceType":"AWS::SSM::Parameter","reason":"dependency failed"},
	 {"eventType":"ROLLBACK_STARTED","stackName":"S"},
	 {"eventType":"RUN_FINISHED","stackName":"S","result":"FAILED","counts":{"created":0,"updated":1,"deleted":0,"failed":1,"skipped":1}}]`))
	assert.NilError(t, err)
	run := SummarizeRun(events)
	assert.Equal(t, run.Result, "FAILED")
	assert.Assert(t, run.RolledBack)
	assert.Assert(t, !run.HasDuration)
	got := map[string]string{}
	for _, r := range run.Resources {
		got[r.LogicalID] = r.Result + "|" + r.Error
	}
	assert.DeepEqual(t, got, map[string]string{
		"Old":   "interrupted|",
		"Param": "skipped|",
		"Queue": "failed|QueueAlreadyExists: A queue already exists with the same name",
		"Topic": "updated|",
	})
	assert.Equal(t, run.Resources[2].Duration, 12500*time.Microsecond)
}

func TestForceUnlockCommand(t *testing.T) {
	assert.Equal(t, ForceUnlockCommand("StackA", "us-east-1"), "cdkd force-unlock StackA --stack-region us-east-1")
	assert.Equal(t, ForceUnlockCommand("StackA", ""), "cdkd force-unlock StackA")
}
