package cdkd

import (
	"errors"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestClassifyEventsSample(t *testing.T) {
	events, err := ClassifyEvents(sample(t, "10-events-stackA-run-json", "events", "StackA", "--json", "--run", "r1"))
	assert.NilError(t, err)
	assert.Equal(t, len(events), 16)

	first := events[0]
	assert.Equal(t, first.EventType, EventRunStarted)
	assert.Equal(t, first.Command, "deploy")
	assert.Equal(t, first.Region, "us-east-1")
	assert.Equal(t, first.CdkdVersion, "0.284.40")
	ts, ok := first.Time()
	assert.Check(t, ok)
	assert.Equal(t, ts, time.Date(2026, 11, 29, 12, 59, 18, 548_000_000, time.UTC))

	var succeeded Event
	for _, e := range events {
		if e.EventType == EventResourceSucceeded && e.LogicalID == "ExtraTopic17EFD352" {
			succeeded = e
		}
	}
	assert.Equal(t, succeeded.Operation, "CREATE")
	assert.Equal(t, succeeded.ResourceType, "AWS::SNS::Topic")
	assert.Equal(t, succeeded.PhysicalID, "arn:aws:sns:us-east-1:000000000000:StackA-ExtraTopic17EFD352")
	assert.Equal(t, succeeded.ProvisionedBy, "sdk")
	d, ok := succeeded.Duration()
	assert.Check(t, ok)
	assert.Equal(t, d, 18*time.Millisecond)

	last := events[len(events)-1]
	assert.Equal(t, last.EventType, EventRunFinished)
	assert.Equal(t, last.Result, "SUCCEEDED")
	assert.DeepEqual(t, last.Counts, &Counts{Created: 7})
	assert.Check(t, last.Error == nil)
}

func TestDecodeEventsFailure(t *testing.T) {
	events, err := DecodeEvents([]byte(`[{"timestamp":"2026-01-01T00:00:00Z","eventType":"RESOURCE_FAILED","stackName":"S","operation":"UPDATE",
	  "logicalId":"Q","resourceType":"AWS::SQS::Queue","durationMs":12.5,"newField":true,
	  "error":{"name":"ProvisioningError","message":"denied","awsErrorCode":"AccessDenied","requestId":"req-1"}},
	  {"timestamp":"2026-01-01T00:00:01Z","eventType":"RUN_FINISHED","stackName":"S","result":"FAILED","counts":{"created":0,"updated":0,"deleted":0,"failed":1,"skipped":2}}]`))
	assert.NilError(t, err)
	assert.DeepEqual(t, events[0].Error, &EventError{Name: "ProvisioningError", Message: "denied", AWSErrorCode: "AccessDenied", RequestID: "req-1"})
	d, _ := events[0].Duration()
	assert.Equal(t, d, 12500*time.Microsecond)
	assert.DeepEqual(t, events[1].Counts, &Counts{Failed: 1, Skipped: 2})
	_, ok := events[1].Duration()
	assert.Check(t, !ok)
}

func TestDecodeRuns(t *testing.T) {
	list, err := DecodeRuns([]byte(`{"stackName":"StackA","region":"us-east-1","runs":[
	  {"runId":"r2","command":"deploy","cdkdVersion":"0.284.40","startedAt":"2026-11-29T13:00:00.000Z","finishedAt":"2026-11-29T13:00:01.000Z","result":"FAILED","eventCount":5},
	  {"runId":"r1","command":"deploy","cdkdVersion":"0.284.40","startedAt":"2026-11-29T12:59:18.548Z","finishedAt":"2026-11-29T12:59:18.671Z","result":"SUCCEEDED","eventCount":16}]}`))
	assert.NilError(t, err)
	assert.Equal(t, list.StackName, "StackA")
	assert.Equal(t, list.Region, "us-east-1")
	assert.DeepEqual(t, list.Runs[0], RunSummary{RunID: "r2", Command: "deploy", CdkdVersion: "0.284.40", StartedAt: "2026-11-29T13:00:00.000Z", FinishedAt: "2026-11-29T13:00:01.000Z", Result: "FAILED", EventCount: 5})
	assert.Equal(t, list.Runs[1].RunID, "r1", "newest first, as cdkd lists them")
}

func TestDecodeEventsRequiredFields(t *testing.T) {
	tests := []struct {
		name string
		fn   func() error
		err  string
	}{
		{name: "runs empty", fn: func() error { _, err := DecodeRuns(nil); return err }, err: "cdkd printed no JSON"},
		{name: "runs missing", fn: func() error { _, err := DecodeRuns([]byte(`{"stackName":"S"}`)); return err }, err: `stack "S": missing "runs"`},
		{name: "runId missing", fn: func() error {
			_, err := DecodeRuns([]byte(`{"stackName":"S","runs":[{"command":"deploy"}]}`))
			return err
		}, err: `run #1: missing "runId"`},
		{name: "events not a list", fn: func() error { _, err := DecodeEvents([]byte(`{}`)); return err }, err: "decode cdkd run events JSON"},
		{name: "eventType missing", fn: func() error { _, err := DecodeEvents([]byte(`[{"timestamp":"x"}]`)); return err }, err: `event #1: missing "eventType"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, tc.fn(), tc.err)
		})
	}
}

func TestClassifyEventsCrash(t *testing.T) {
	res := Result{Args: []string{"events", "S", "--json"}, ExitCode: 1, StderrTail: []string{"CdkdError: No deployment-event history found for stack 'S'."}}
	_, err := ClassifyRuns(res)
	var e *Error
	assert.Assert(t, errors.As(err, &e))
	assert.Equal(t, e.Command, "events")
	assert.Check(t, is.Contains(e.Reason, "No deployment-event history"))
}

func TestClassifyStateShowSample(t *testing.T) {
	s, err := ClassifyStateShow(sample(t, "07-state-show-stackA-json", "state", "show", "StackA", "--json"))
	assert.NilError(t, err)
	assert.Equal(t, s.State.StackName, "StackA")
	assert.Equal(t, s.State.Region, "us-east-1")
	assert.Equal(t, s.State.Version, 8)
	assert.Check(t, s.Lock == nil)
	assert.Equal(t, len(s.State.Resources), 7)
	assert.Equal(t, len(s.State.Outputs), 5)
	assert.Equal(t, s.State.Outputs["FixtureBucketName"].Text(), "stacka-bucket83908e77")
	q := s.State.Resources["Queue4A7E3555"]
	assert.Equal(t, q.ResourceType, "AWS::SQS::Queue")
	assert.Equal(t, q.DeletionPolicy, "Delete")
	assert.Equal(t, q.ProvisionedBy, "sdk")
	assert.Check(t, len(q.Properties) > 0)
}

func TestDecodeStateShow(t *testing.T) {
	s, err := DecodeStateShow([]byte(`{"state":{"version":11,"stackName":"S","region":"r","resources":{},"outputs":{}},
	  "lock":{"owner":"ci@runner","timestamp":1700000000000,"expiresAt":1700001800000,"operation":"deploy"}}`))
	assert.NilError(t, err)
	assert.DeepEqual(t, s.Lock, &Lock{Owner: "ci@runner", Operation: "deploy", Timestamp: 1700000000000, ExpiresAt: 1700001800000})

	_, err = DecodeStateShow([]byte(`{"state":null,"lock":null}`))
	assert.ErrorContains(t, err, `missing "state"`)
	_, err = DecodeStateShow([]byte(`{"state":{"version":8}}`))
	assert.ErrorContains(t, err, `state: missing "stackName"`)

	_, err = ClassifyStateShow(Result{Args: []string{"state", "show", "S", "--json"}, ExitCode: 1, StderrTail: []string{"Error: No state found for stack S"}})
	assert.ErrorContains(t, err, "cdkd state show failed (exit 1): Error: No state found for stack S")
}
