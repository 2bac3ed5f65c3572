package cdkd

import (
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestDecodeDiffSampleV2(t *testing.T) {
	d, err := ClassifyDiff(sample(t, "16-diff-v2-json", "diff", "--all", "--json"))
	assert.NilError(t, err)
	assert.Equal(t, len(d.Stacks), 2)

	a := d.Stacks[0]
	assert.Equal(t, a.Stack, "StackA")
	assert.Equal(t, a.Region, "us-east-1")
	var ids []string
	for _, c := range a.Changes {
		ids = append(ids, c.LogicalID)
	}
	// Sorted, whatever cdkd's order.
	assert.DeepEqual(t, ids, []string{"ExtraTopic17EFD352", "NewQueue1C62264E", "NoEchoParam2FCCC8BD", "Queue4A7E3555", "TopicBFC7AF6E"})

	byID := map[string]model.ResourceChange{}
	for _, c := range a.Changes {
		byID[c.LogicalID] = c
	}
	queue := byID["Queue4A7E3555"]
	assert.Equal(t, queue.ChangeType, model.ChangeUpdate)
	assert.Equal(t, queue.Action(), model.ActionReplace, "an UPDATE with requiresReplacement is a replacement")
	assert.DeepEqual(t, queue.ReplacingPaths(), []string{"QueueName"})
	assert.Equal(t, queue.PropertyChanges[0].Old.Text(), "fixture-queue-v1")
	assert.Equal(t, queue.PropertyChanges[0].New.Text(), "fixture-queue-v2")
	assert.Equal(t, byID["TopicBFC7AF6E"].Action(), model.ActionUpdate)
	assert.Equal(t, byID["NewQueue1C62264E"].Action(), model.ActionCreate)
	assert.Check(t, is.Len(byID["NewQueue1C62264E"].PropertyChanges, 0))
	assert.Equal(t, byID["ExtraTopic17EFD352"].Action(), model.ActionDelete)
	assert.Equal(t, byID["ExtraTopic17EFD352"].ResourceType, "AWS::SNS::Topic")

	assert.DeepEqual(t, a.OutputChanges, []model.OutputChange{
		{Name: "ExtraTopicArn", ChangeType: model.OutputRemove, OldValueRedacted: true},
		{Name: "QueueArn", ChangeType: model.OutputAdd, New: model.JSONValue(`"arn:aws:sqs:us-east-1:000000000000:fixture-queue-v1"`)},
	})
	assert.Check(t, !a.OutputChanges[0].Old.Present(), "a redacted old value is absent, not null")

	// StackB: a property added in v2 has no oldValue key at all.
	assert.DeepEqual(t, d.Stacks[1], model.StackDiff{
		Stack:  "StackB",
		Region: "us-east-1",
		Changes: []model.ResourceChange{{
			LogicalID:    "ImportedBucketParam03535B42",
			ChangeType:   model.ChangeUpdate,
			ResourceType: "AWS::SSM::Parameter",
			PropertyChanges: []model.PropertyChange{{
				Path: "Description",
				New:  model.JSONValue(`"added in v2"`),
			}},
		}},
	})
	assert.Check(t, !d.Stacks[1].Changes[0].PropertyChanges[0].Old.Present())

	assert.DeepEqual(t, d.Totals(), model.Counts{Create: 1, Update: 3, Replace: 1, Delete: 1, OutputsAdd: 1, OutputsRemove: 1})
}

func TestDecodeDiffNoChange(t *testing.T) {
	d, err := ClassifyDiff(sample(t, "12-diff-v1-nochange-json", "diff", "--all", "--json"))
	assert.NilError(t, err)
	assert.Equal(t, len(d.Stacks), 2)
	assert.Check(t, !d.HasChanges())
	assert.Equal(t, d.Stacks[0].Stack, "StackA")
	assert.Equal(t, d.Stacks[1].Stack, "StackB")
}

func TestDecodeDiffValues(t *testing.T) {
	d, err := DecodeDiff([]byte(`[{"stack":"S","region":"r","unknownTop":1,"changes":[
	  {"logicalId":"R","changeType":"UPDATE","resourceType":"T","futureField":{"x":1},
	   "propertyChanges":[
	     {"path":"Gone","oldValue":"v","requiresReplacement":false},
	     {"path":"Nulled","oldValue":{"a":[1,2]},"newValue":null,"requiresReplacement":false,"replacementPropagated":true}],
	   "attributeChanges":[{"attribute":"DeletionPolicy","oldValue":"Delete","newValue":"Retain"}],
	   "ccApi":["Z","A"]},
	  {"logicalId":"Same","changeType":"NO_CHANGE","resourceType":"T"}],
	 "outputChanges":[{"name":"O","changeType":"MODIFY","oldValue":"1","newValue":"2","export":true}],
	 "children":[{"stack":"Child","region":"r","changes":[{"logicalId":"C","changeType":"CREATE","resourceType":"T"}],"outputChanges":[],"children":[]}]}]`))
	assert.NilError(t, err)
	s := d.Stacks[0]
	assert.Equal(t, len(s.Changes), 1, "NO_CHANGE rows are not changes")
	pc := s.Changes[0].PropertyChanges
	assert.Equal(t, pc[0].Path, "Gone")
	assert.Check(t, pc[0].Old.Present())
	assert.Check(t, !pc[0].New.Present(), "absent newValue stays absent")
	assert.Equal(t, pc[1].Path, "Nulled")
	assert.Check(t, pc[1].New.Present() && pc[1].New.IsNull(), "null newValue stays null")
	assert.Equal(t, pc[1].Old.Text(), `{"a":[1,2]}`)
	assert.Check(t, pc[1].ReplacementPropagated != nil && *pc[1].ReplacementPropagated)
	assert.DeepEqual(t, s.Changes[0].CCAPI, []string{"A", "Z"})
	assert.Equal(t, s.Changes[0].AttributeChanges[0].New.Text(), "Retain")
	assert.DeepEqual(t, s.OutputChanges[0], model.OutputChange{Name: "O", ChangeType: model.OutputModify, Old: model.JSONValue(`"1"`), New: model.JSONValue(`"2"`), Export: true})
	assert.Equal(t, len(s.Children), 1)
	assert.Equal(t, s.Children[0].Stack, "Child")
	assert.Equal(t, d.Totals().Create, 1, "nested changes count")
}

func TestDecodeDiffNoEchoNote(t *testing.T) {
	tests := []struct {
		name string
		note string
		want []string
	}{
		{name: "ids", note: `["B","A"]`, want: []string{"A", "B"}},
		{name: "objects", note: `[{"logicalId":"X","type":"T"}]`, want: []string{"X"}},
		{name: "unknown shape ignored", note: `3`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DecodeDiff([]byte(`[{"stack":"S","changes":[],"outputChanges":[],"noEchoReaders":` + tc.note + `}]`))
			assert.NilError(t, err)
			assert.DeepEqual(t, d.Stacks[0].NoEchoReaders, tc.want)
			assert.Check(t, !d.HasChanges(), "a NoEcho note is not a change")
		})
	}
}

func TestDecodeDiffRequiredFields(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{name: "empty", in: " \n", err: "cdkd printed no JSON"},
		{name: "not a list", in: `{"stack":"S"}`, err: "decode cdkd diff JSON"},
		{name: "null", in: `null`, err: "got null"},
		{name: "missing stack", in: `[{"changes":[]}]`, err: `stack #1: missing "stack"`},
		{name: "missing changes", in: `[{"stack":"S"}]`, err: `stack "S": missing "changes"`},
		{name: "missing logicalId", in: `[{"stack":"S","changes":[{"changeType":"CREATE","resourceType":"T"}]}]`, err: `stack "S": change #1: missing "logicalId"`},
		{name: "missing changeType", in: `[{"stack":"S","changes":[{"logicalId":"R","resourceType":"T"}]}]`, err: `resource "R": missing "changeType"`},
		{name: "garbage changeType", in: `[{"stack":"S","changes":[{"logicalId":"R","changeType":"re place!","resourceType":"T"}]}]`, err: `changeType "re place!" is not a change type`},
		{name: "missing resourceType", in: `[{"stack":"S","changes":[{"logicalId":"R","changeType":"CREATE"}]}]`, err: `resource "R": missing "resourceType"`},
		{name: "missing property path", in: `[{"stack":"S","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"T","propertyChanges":[{"newValue":1}]}]}]`, err: `property change #1: missing "path"`},
		{name: "missing output name", in: `[{"stack":"S","changes":[],"outputChanges":[{"changeType":"ADD"}]}]`, err: `stack "S": output change #1: missing "name"`},
		{name: "missing output changeType", in: `[{"stack":"S","changes":[],"outputChanges":[{"name":"O"}]}]`, err: `output "O": missing "changeType"`},
		{name: "garbage output changeType", in: `[{"stack":"S","changes":[],"outputChanges":[{"name":"O","changeType":""}]}]`, err: `changeType "" is not a change type`},
		{name: "nested stack", in: `[{"stack":"P","changes":[],"children":[{"stack":"C"}]}]`, err: `stack "P/C": missing "changes"`},
		{name: "wrong type", in: `[{"stack":1,"changes":[]}]`, err: "decode cdkd diff JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDiff([]byte(tc.in))
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// A change type a later cdkd adds is kept as it is and counted as a change,
// and the diff does not fail on it.
func TestDecodeDiffUnknownChangeType(t *testing.T) {
	d, err := DecodeDiff([]byte(`[{"stack":"S","region":"r","changes":[{"logicalId":"R","changeType":"IMPORT","resourceType":"AWS::S3::Bucket"}],` +
		`"outputChanges":[{"name":"O","changeType":"RENAME","export":false}]}]`))
	assert.NilError(t, err)
	ch := d.Stacks[0].Changes[0]
	assert.Equal(t, string(ch.Action()), "IMPORT")
	assert.Check(t, ch.Destructive(), "what an unknown change does is not known")
	totals := d.Totals()
	assert.Equal(t, totals.Other, 1)
	assert.Equal(t, totals.OutputsOther, 1)
	assert.Check(t, d.HasChanges())
}

func TestClassifyDiff(t *testing.T) {
	okJSON := []byte(`[{"stack":"S","region":"r","changes":[{"logicalId":"R","changeType":"CREATE","resourceType":"T"}],"outputChanges":[]}]`)
	args := []string{"diff", "--all", "--json"}
	tests := []struct {
		name    string
		res     Result
		changes bool
		reason  string // empty: no error
	}{
		{name: "exit 0 with JSON", res: Result{Args: args, Stdout: okJSON}, changes: true},
		{name: "exit 1 with JSON is --fail", res: Result{Args: args, Stdout: okJSON, ExitCode: 1}, changes: true},
		{
			name:   "exit 1 without JSON is a crash",
			res:    Result{Args: args, ExitCode: 1, StderrTail: []string{"Synthesizing CDK app...", "Error: Region is missing"}},
			reason: "Error: Region is missing",
		},
		{
			name:   "exit 1 with garbage",
			res:    Result{Args: args, Stdout: []byte("Synthesizing..."), ExitCode: 1, StderrTail: []string{"TypeError: x is undefined"}},
			reason: "TypeError: x is undefined",
		},
		{name: "exit 1 silent", res: Result{Args: args, ExitCode: 1}, reason: "cdkd exited with code 1 and printed no error message"},
		{name: "exit 0 empty", res: Result{Args: args}, reason: "cdkd printed no JSON"},
		{name: "exit 0 garbage", res: Result{Args: args, Stdout: []byte("[{")}, reason: "could not read cdkd's JSON output"},
		{name: "other exit", res: Result{Args: args, Stdout: okJSON, ExitCode: 2, StderrTail: []string{"Error: odd"}}, reason: "Error: odd"},
		{name: "killed", res: Result{Args: args, ExitCode: -1, Cancelled: true}, reason: "cancelled"},
		{
			name:   "real crash sample",
			res:    sample(t, "44-drift-stackW-sns-unreachable-json", "diff", "StackW", "--json"),
			reason: "Error: connect ECONNREFUSED 127.0.0.1:1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ClassifyDiff(tc.res)
			if tc.reason == "" {
				assert.NilError(t, err)
				assert.Equal(t, d.HasChanges(), tc.changes)
				return
			}
			var e *Error
			assert.Assert(t, errors.As(err, &e), "want *Error, got %v", err)
			assert.Check(t, is.Contains(e.Reason, tc.reason))
			assert.Check(t, !strings.Contains(strings.ToLower(e.Reason), "no change"))
			assert.Equal(t, e.Command, "diff")
			assert.Equal(t, e.ExitCode, tc.res.ExitCode)
			assert.DeepEqual(t, e.Raw, tc.res.Stdout)
			assert.Check(t, is.Contains(err.Error(), "cdkd diff failed"))
		})
	}
}

// Text on stdout instead of JSON (cdkd --verbose, say) is shown in the error,
// so the failure can be diagnosed.
func TestDecodeDiffShowsWhatWasPrintedInstead(t *testing.T) {
	_, err := DecodeDiff([]byte("\nBundling asset StackA/Fn...\n[{\"stack\":\"A\"}]"))
	assert.ErrorContains(t, err, `stdout starts with "Bundling asset StackA/Fn..."`)
}
