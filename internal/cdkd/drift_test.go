package cdkd

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestClassifyDriftSamples(t *testing.T) {
	t.Run("14 clean", func(t *testing.T) {
		run, err := ClassifyDrift(sample(t, "14-drift-clean-json", "drift", "--all", "--json"))
		assert.NilError(t, err)
		assert.Equal(t, run.ExitCode, 0)
		assert.Equal(t, len(run.Drift.Stacks), 2)
		a := run.Drift.Stacks[0]
		assert.Equal(t, a.Stack, "StackA")
		assert.Check(t, is.Len(a.Drifted, 0))
		assert.Check(t, is.Len(a.Clean, 7))
		assert.DeepEqual(t, a.Clean[0], model.Resource{LogicalID: "Bucket83908E77", Type: "AWS::S3::Bucket"})
		assert.Check(t, is.Len(a.Skipped, 0))
		assert.Check(t, is.Len(a.NotCompared, 0))
	})

	t.Run("20 drift exits 1 with JSON", func(t *testing.T) {
		run, err := ClassifyDrift(sample(t, "20-drift-oob1-json", "drift", "--all", "--json"))
		assert.NilError(t, err)
		assert.Equal(t, run.ExitCode, 1)
		a := run.Drift.Stacks[0]
		assert.Equal(t, len(a.Drifted), 3)
		assert.DeepEqual(t, a.Drifted[1], model.DriftedResource{
			Resource: model.Resource{LogicalID: "Queue4A7E3555", Type: "AWS::SQS::Queue"},
			Changes:  []model.DriftChange{{Path: "VisibilityTimeout", State: model.JSONValue("30"), AWS: model.JSONValue("99")}},
		})
		assert.Equal(t, a.Drifted[2].Changes[0].AWS.Text(), "changed-out-of-band")
		assert.Check(t, is.Len(run.Drift.Stacks[1].Drifted, 0))
	})

	t.Run("25 refused exits 2, no cause reported", func(t *testing.T) {
		run, err := ClassifyDrift(sample(t, "25-drift-stackC-refused-json", "drift", "StackC", "--json"))
		assert.NilError(t, err)
		assert.Equal(t, run.ExitCode, 2)
		nc := run.Drift.Stacks[0].NotCompared
		assert.DeepEqual(t, nc, []model.NotCompared{{
			Resource:             model.Resource{LogicalID: "XrSecretParam", Type: "AWS::SSM::Parameter"},
			ReferencesUnresolved: true,
		}})
	})

	t.Run("86 ssm-secure exits 0 with the same shape", func(t *testing.T) {
		run, err := ClassifyDrift(sample(t, "86-drift-stackD-ssmsecure-json", "drift", "StackD", "--json"))
		assert.NilError(t, err)
		assert.Equal(t, run.ExitCode, 0)
		nc := run.Drift.Stacks[0].NotCompared
		assert.Equal(t, len(nc), 1)
		assert.Equal(t, nc[0].LogicalID, "SecureTopic")
		assert.Equal(t, nc[0].Cause, model.CauseUnreported)
	})

	t.Run("44 a failed read aborts: could not check, not drift", func(t *testing.T) {
		_, err := ClassifyDrift(sample(t, "44-drift-stackW-sns-unreachable-json", "drift", "StackW", "--json"))
		var e *Error
		assert.Assert(t, errors.As(err, &e), "got %v", err)
		assert.Equal(t, e.Reason, "Error: connect ECONNREFUSED 127.0.0.1:1")
		assert.Equal(t, e.ExitCode, 1)
		assert.Equal(t, e.Command, "drift")
	})
}

func TestDecodeDriftSeedsShape(t *testing.T) {
	d, err := DecodeDrift([]byte(`[{"stack":"S","region":"r","drifted":[],"clean":[],"notSupported":[{"logicalId":"F","type":"AWS::Lambda::Function"}],
	  "notCompared":[
	    {"logicalId":"Z","type":"T","referencesUnresolved":false,"cause":"readFailed"},
	    {"logicalId":"A","type":"T","referencesUnresolved":true,"cause":"refused"},
	    {"logicalId":"M","type":"T","referencesUnresolved":true,"cause":"somethingNew"}]}]`))
	assert.NilError(t, err)
	s := d.Stacks[0]
	assert.Check(t, s.Skipped == nil, "skipped is optional")
	assert.DeepEqual(t, s.NotSupported, []model.Resource{{LogicalID: "F", Type: "AWS::Lambda::Function"}})
	var causes []model.NotComparedCause
	for _, nc := range s.NotCompared {
		causes = append(causes, nc.Cause)
	}
	assert.DeepEqual(t, causes, []model.NotComparedCause{model.CauseRefused, "somethingNew", model.CauseReadFailed})
}

func TestDecodeDriftRequiredFields(t *testing.T) {
	full := `"drifted":[],"clean":[],"notSupported":[],"notCompared":[]`
	tests := []struct{ name, in, err string }{
		{name: "empty", in: "", err: "cdkd printed no JSON"},
		{name: "object", in: `{}`, err: "decode cdkd drift JSON"},
		{name: "missing stack", in: `[{` + full + `}]`, err: `stack #1: missing "stack"`},
		{name: "missing drifted", in: `[{"stack":"S","clean":[],"notSupported":[],"notCompared":[]}]`, err: `stack "S": missing "drifted"`},
		{name: "missing notCompared", in: `[{"stack":"S","drifted":[],"clean":[],"notSupported":[]}]`, err: `stack "S": missing "notCompared"`},
		{name: "drifted without id", in: `[{"stack":"S","drifted":[{"type":"T","changes":[]}],"clean":[],"notSupported":[],"notCompared":[]}]`, err: `stack "S": drifted #1: missing "logicalId"`},
		{name: "change without path", in: `[{"stack":"S","drifted":[{"logicalId":"R","changes":[{"stateValue":1}]}],"clean":[],"notSupported":[],"notCompared":[]}]`, err: `drifted resource "R": change #1: missing "path"`},
		{name: "clean without id", in: `[{"stack":"S","drifted":[],"clean":[{}],"notSupported":[],"notCompared":[]}]`, err: `clean #1: missing "logicalId"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDrift([]byte(tc.in))
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func TestClassifyDriftExits(t *testing.T) {
	report := []byte(`[{"stack":"S","drifted":[],"clean":[],"notSupported":[],"notCompared":[]}]`)
	tests := []struct {
		name   string
		res    Result
		reason string
	}{
		{name: "exit 0 report", res: Result{Stdout: report}},
		{name: "exit 2 report", res: Result{Stdout: report, ExitCode: 2}},
		{name: "exit 0 without JSON", res: Result{}, reason: "cdkd printed no JSON"},
		{name: "exit 2 without JSON", res: Result{ExitCode: 2, StderrTail: []string{"PartialFailureError: 1 resource did not revert"}}, reason: "PartialFailureError: 1 resource did not revert"},
		{name: "exit 3", res: Result{Stdout: report, ExitCode: 3, StderrTail: []string{"Error: what"}}, reason: "Error: what"},
		{name: "cancelled", res: Result{Stdout: report, Cancelled: true, ExitCode: -1}, reason: "cancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.Args = []string{"drift", "--all", "--json"}
			run, err := ClassifyDrift(tc.res)
			if tc.reason == "" {
				assert.NilError(t, err)
				assert.Equal(t, run.ExitCode, tc.res.ExitCode)
				return
			}
			var e *Error
			assert.Assert(t, errors.As(err, &e), "got %v", err)
			assert.Check(t, is.Contains(e.Reason, tc.reason))
		})
	}
}
