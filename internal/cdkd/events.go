package cdkd

import (
	"bytes"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Event types cdkd records per deploy or destroy run. Others may appear; an
// Event keeps whatever cdkd wrote.
const (
	EventRunStarted             = "RUN_STARTED"
	EventRunFinished            = "RUN_FINISHED"
	EventResourceStarted        = "RESOURCE_STARTED"
	EventResourceSucceeded      = "RESOURCE_SUCCEEDED"
	EventResourceFailed         = "RESOURCE_FAILED"
	EventResourceRetained       = "RESOURCE_RETAINED"
	EventResourceSkipped        = "RESOURCE_SKIPPED"
	EventRollbackStarted        = "ROLLBACK_STARTED"
	EventRollbackResourceFailed = "ROLLBACK_RESOURCE_FAILED"
	EventRollbackFinished       = "ROLLBACK_FINISHED"
)

// Event is one entry of `cdkd events <stack> --run <id> --json`. Fields are
// optional per event type. Physical ids and error messages can carry a secret
// (a resource named after one): redact before showing.
type Event struct {
	Timestamp     string      `json:"timestamp"`
	EventType     string      `json:"eventType"`
	StackName     string      `json:"stackName"`
	Command       string      `json:"command,omitempty"`
	Region        string      `json:"region,omitempty"`
	CdkdVersion   string      `json:"cdkdVersion,omitempty"`
	Result        string      `json:"result,omitempty"`
	Operation     string      `json:"operation,omitempty"`
	LogicalID     string      `json:"logicalId,omitempty"`
	ResourceType  string      `json:"resourceType,omitempty"`
	PhysicalID    string      `json:"physicalId,omitempty"`
	ProvisionedBy string      `json:"provisionedBy,omitempty"`
	DurationMs    *float64    `json:"durationMs,omitempty"`
	Counts        *Counts     `json:"counts,omitempty"`
	Reason        string      `json:"reason,omitempty"`
	Error         *EventError `json:"error,omitempty"`
}

// Time parses the event's ISO 8601 timestamp.
func (e Event) Time() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	return t, err == nil
}

// Duration is the event's durationMs, when it has one.
func (e Event) Duration() (time.Duration, bool) {
	if e.DurationMs == nil {
		return 0, false
	}
	return time.Duration(*e.DurationMs * float64(time.Millisecond)), true
}

// EventError is the error metadata of a failed event.
type EventError struct {
	Name         string `json:"name"`
	Message      string `json:"message"`
	AWSErrorCode string `json:"awsErrorCode,omitempty"`
	RequestID    string `json:"requestId,omitempty"`
}

// Counts are a finished run's per-operation counters.
type Counts struct {
	Created int `json:"created"`
	Updated int `json:"updated"`
	Deleted int `json:"deleted"`
	Failed  int `json:"failed,omitempty"`
	Skipped int `json:"skipped,omitempty"`
}

// RunList is `cdkd events <stack> --json`: the stack's recorded runs, newest
// first.
type RunList struct {
	StackName string       `json:"stackName"`
	Region    string       `json:"region"`
	Runs      []RunSummary `json:"runs"`
}

// RunSummary is one recorded run. Result is SUCCEEDED, FAILED or UNKNOWN
// (a run with no RUN_FINISHED event, e.g. interrupted).
type RunSummary struct {
	RunID       string `json:"runId"`
	Command     string `json:"command"`
	CdkdVersion string `json:"cdkdVersion"`
	StartedAt   string `json:"startedAt"`
	FinishedAt  string `json:"finishedAt"`
	Result      string `json:"result"`
	EventCount  int    `json:"eventCount"`
}

// DecodeRuns parses `cdkd events <stack> --json`. runs and every runId are
// required.
func DecodeRuns(b []byte) (RunList, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return RunList{}, errNoJSON
	}
	var raw struct {
		StackName string            `json:"stackName"`
		Region    string            `json:"region"`
		Runs      *[]jsontext.Value `json:"runs"`
	}
	if err := unmarshal(b, &raw); err != nil {
		return RunList{}, fmt.Errorf("decode cdkd events JSON: %s", jsonProblem(err, "an object"))
	}
	if raw.Runs == nil {
		return RunList{}, fmt.Errorf("decode cdkd events JSON: stack %q: missing %q", raw.StackName, "runs")
	}
	list := RunList{StackName: raw.StackName, Region: raw.Region}
	for i, r := range *raw.Runs {
		var s RunSummary
		if err := unmarshal(r, &s); err != nil {
			return RunList{}, fmt.Errorf("decode cdkd events JSON: stack %q: run #%d: %s", raw.StackName, i+1, jsonProblem(err, "an object"))
		}
		if s.RunID == "" {
			return RunList{}, fmt.Errorf("decode cdkd events JSON: stack %q: run #%d: missing %q", raw.StackName, i+1, "runId")
		}
		list.Runs = append(list.Runs, s)
	}
	return list, nil
}

// DecodeEvents parses `cdkd events <stack> --run <id> --json`, in cdkd's
// order. eventType is required on every event.
func DecodeEvents(b []byte) ([]Event, error) {
	events, err := decodeList[Event](b, "cdkd run events JSON", "events")
	if err != nil {
		return nil, err
	}
	for i, e := range events {
		if e.EventType == "" {
			return nil, fmt.Errorf("decode cdkd run events JSON: event #%d: missing %q", i+1, "eventType")
		}
	}
	return events, nil
}

// ClassifyRuns reads an events listing run; errors are *Error.
func ClassifyRuns(res Result) (RunList, error) { return classifyPayload(res, DecodeRuns) }

// ClassifyEvents reads a run's event stream; errors are *Error.
func ClassifyEvents(res Result) ([]Event, error) { return classifyPayload(res, DecodeEvents) }

// classifyPayload reads what a read-only command printed: a run that did
// not exit 0, or output that does not decode, is an *Error.
func classifyPayload[T any](res Result, decode func([]byte) (T, error)) (T, error) {
	var zero T
	if res.Cancelled || res.ExitCode != 0 {
		return zero, newError(res, crashReason(res), nil)
	}
	v, err := decode(res.Stdout)
	if err != nil {
		return zero, newError(res, decodeReason(err), err)
	}
	return v, nil
}
