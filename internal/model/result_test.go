package model

import (
	"bytes"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

func sampleDiffResult() DiffResult {
	d := Diff{Stacks: []StackDiff{{
		Stack: "Parent", Region: "eu-west-1",
		Changes: []ResourceChange{
			{LogicalID: "Queue", ChangeType: ChangeUpdate, ResourceType: "AWS::SQS::Queue", PropertyChanges: []PropertyChange{
				{Path: "QueueName", Old: StringValue("a"), New: StringValue("b"), RequiresReplacement: true},
				{Path: "Tags", New: JSONValue(`[{"Key":"k","Value":null}]`)},
				{Path: "Password", Old: HiddenValue(), New: HiddenValue(), Secret: SecretNoEcho},
			}},
			{LogicalID: "Old", ChangeType: ChangeDelete, ResourceType: "AWS::SNS::Topic",
				AttributeChanges: []AttributeChange{{Attribute: "DeletionPolicy", Old: StringValue("Retain")}}},
		},
		OutputChanges: []OutputChange{{Name: "Url", ChangeType: OutputRemove, OldValueRedacted: true}},
		Children:      []StackDiff{{Stack: "Child", Region: "eu-west-1", Changes: []ResourceChange{{LogicalID: "New", ChangeType: ChangeCreate, ResourceType: "AWS::S3::Bucket"}}}},
		NoEchoReaders: []string{"Reader"},
	}}}
	res := NewDiffResult(Origin{Label: "prod", RunURL: "https://github.com/o/r/actions/runs/1", CdkdVersion: "0.284.40"}, "1111111", d.Digest(), d)
	res.Notes = []string{"NoEcho positions are unknown."}
	return res
}

func sampleDriftResult() DriftResult {
	drift := Drift{Stacks: []StackDrift{{
		Stack: "StackA", Region: "us-east-1",
		Drifted:     []DriftedResource{{Resource: Resource{LogicalID: "Topic", Type: "AWS::SNS::Topic"}, Changes: []DriftChange{{Path: "DisplayName", State: StringValue("a"), AWS: StringValue("b")}}}},
		Clean:       []Resource{{LogicalID: "Bucket", Type: "AWS::S3::Bucket"}},
		NotCompared: []NotCompared{{Resource: Resource{LogicalID: "Fn", Type: "AWS::Lambda::Function"}, Cause: CauseRefused, CauseInferred: true, CauseBasis: BasisReported}},
	}}}
	after := ClassifyRun(&Drift{Stacks: []StackDrift{{Stack: "StackA", Region: "us-east-1", Clean: []Resource{{LogicalID: "Topic", Type: "AWS::SNS::Topic"}}}}}, 0, nil)
	return DriftResult{
		Header: Header{SchemaVersion, KindDrift}, Origin: Origin{Label: "nightly", CdkdVersion: "0.284.40"}, SHA: "2222222",
		Verdict: ClassifyRun(&drift, 1, nil), CauseNote: "decided from the state record", Notes: []string{"a note"},
		HiddenStacks: []string{"StackA"}, Stacks: drift.Stacks,
		Resolution: &DriftResolution{Mode: "revert", Resources: []string{"StackA/Topic"}, Summary: []string{"1 reverted"}, After: &after,
			AfterDrift: Drift{Stacks: []StackDrift{{Stack: "StackA", Region: "us-east-1"}}}},
	}
}

func sampleDeployResult() DeployResult {
	return DeployResult{
		Header: Header{SchemaVersion, KindDeploy}, Origin: Origin{Label: "prod", RunURL: "https://github.com/o/r/actions/runs/2"},
		Outcome: OutcomePartial, Title: "Partially deployed", Message: "cdkd left one resource unaddressed.", Reason: "partial",
		SHA: "3333333", Digest: "v1:abc", Review: DeployReview{PullRequest: 8, HeadSHA: "4444444", CommentURL: "https://github.com/o/r/pull/8#c1", ReviewedSHA: "4444444", Digest: "v1:abc", Reviewed: true},
		Warnings:    []string{"synthesized again"},
		Destructive: []DestructiveChange{{Stack: "StackA", LogicalID: "Queue", Type: "AWS::SQS::Queue", Action: ActionReplace, ForcedBy: []string{"QueueName"}, AllowedBy: "allow-destructive"}},
		Lock:        &DeployLock{Stack: "StackB", Region: "us-east-1", Owner: "ci", Operation: "deploy", ExpiresIn: "5m", Unlock: "cdkd force-unlock StackB"},
		Stacks: []DeployedStack{{Stack: "StackA", Region: "us-east-1", Result: "FAILED", Created: 1, Failed: 1, Duration: "3s",
			Resources: []DeployedResource{{LogicalID: "Queue", Type: "AWS::SQS::Queue", Result: "failed", Error: "denied"}},
			Outputs:   []StackOutput{{Name: "Url", Value: "https://x"}, {Name: "Token", Value: Hidden, Secret: true}}}},
		StackOutputs: map[string]map[string]string{"StackA": {"Url": "https://x", "Token": Hidden}},
		StderrTail:   []string{"Error: denied"},
	}
}

// The report JSON is a contract: each result's encoding is pinned by a
// golden file (go test ./internal/model -update to regenerate; review the
// diff), and decoding it gives the same result back.
func TestResultJSONGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		v    any
		back func([]byte) (any, error)
	}{
		"diff":   {sampleDiffResult(), func(b []byte) (any, error) { var r DiffResult; return r, json.Unmarshal(b, &r) }},
		"drift":  {sampleDriftResult(), func(b []byte) (any, error) { var r DriftResult; return r, json.Unmarshal(b, &r) }},
		"deploy": {sampleDeployResult(), func(b []byte) (any, error) { var r DeployResult; return r, json.Unmarshal(b, &r) }},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			assert.NilError(t, err)
			var pretty bytes.Buffer
			assert.NilError(t, json.Indent(&pretty, b, "", "  "))
			golden.Assert(t, pretty.String()+"\n", "result-"+name+".json")

			h, ok, err := ReportHeader(b)
			assert.NilError(t, err)
			assert.Assert(t, ok)
			assert.Equal(t, h, Header{SchemaVersion, Kind(name)})

			back, err := tc.back(b)
			assert.NilError(t, err)
			again, err := json.Marshal(back)
			assert.NilError(t, err)
			assert.Equal(t, string(again), string(b), "decoding and encoding again changes the report")
		})
	}
}

func TestReportHeader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
		err      string
	}{
		{"cdkd diff JSON", `[{"stack":"A","changes":[]}]`, false, ""},
		{"cdkd drift JSON", `{"stacks":[]}`, false, ""},
		{"not JSON", `hello`, false, ""},
		{"report", ` {"schemaVersion":1,"kind":"drift"}`, true, ""},
		{"newer report", `{"schemaVersion":2,"kind":"diff"}`, true, "schemaVersion 2 is newer than this cdkd-action reads (1)"},
		{"unknown kind", `{"schemaVersion":1,"kind":"plan"}`, true, `report kind "plan" is not diff, drift or deploy`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := ReportHeader([]byte(tc.in))
			assert.Equal(t, ok, tc.ok)
			if tc.err == "" {
				assert.NilError(t, err)
			} else {
				assert.ErrorContains(t, err, tc.err)
			}
		})
	}
}

func TestFinalDriftStatus(t *testing.T) {
	clean := &RunVerdict{Status: DriftClean}
	for _, tc := range []struct {
		name string
		res  *DriftResolution
		want DriftStatus
	}{
		{"no resolution", nil, DriftDrifted},
		{"resolved", &DriftResolution{After: clean}, DriftClean},
		{"detection after it failed", &DriftResolution{AfterError: "boom"}, DriftError},
		{"resolution failed before detecting", &DriftResolution{Error: "boom"}, DriftDrifted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, FinalDriftStatus(DriftDrifted, tc.res), tc.want)
			r := DriftResult{Verdict: RunVerdict{Status: DriftDrifted}, Resolution: tc.res}
			b, err := json.Marshal(r)
			assert.NilError(t, err)
			var got struct {
				Status, FinalStatus DriftStatus
			}
			assert.NilError(t, json.Unmarshal(b, &got))
			assert.Equal(t, got.Status, DriftDrifted)
			assert.Equal(t, got.FinalStatus, tc.want)
		})
	}
}
