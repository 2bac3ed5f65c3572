package model

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// readsLambda stands in for the cdkd edge's provider list: a Lambda function
// reported unsupported was not read as expected.
func readsLambda(typ string) bool { return typ == "AWS::Lambda::Function" }

func res(id, typ string) Resource { return Resource{LogicalID: id, Type: typ} }

func nc(id string, cause NotComparedCause) NotCompared {
	return NotCompared{Resource: res(id, "AWS::SNS::Topic"), ReferencesUnresolved: cause != CauseReadFailed, Cause: cause}
}

func drifted(id string, partial bool) DriftedResource {
	return DriftedResource{Resource: res(id, "AWS::SQS::Queue"), ReferencesUnresolved: partial,
		Changes: []DriftChange{{Path: "VisibilityTimeout", State: JSONValue("30"), AWS: JSONValue("99")}}}
}

func stack(name string, fill func(s *StackDrift)) StackDrift {
	s := StackDrift{Stack: name, Region: "us-east-1", Clean: []Resource{res("Clean1", "AWS::S3::Bucket")}}
	if fill != nil {
		fill(&s)
	}
	return s
}

// The seeds' exit-code table, case by case: what cdkd's exit code and
// report mean, and what the action concludes.
func TestClassifyRunFollowsTheSeedsExitCodeTable(t *testing.T) {
	tests := []struct {
		name   string
		drift  *Drift // nil: cdkd printed no JSON
		exit   int
		want   DriftStatus
		reason string
		// noReason: the verdict carries no run-level reason.
		noReason bool
	}{
		{name: "0: everything compared and matched", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{stack("A", nil)}}},
		{name: "0: unresolvedToken only is permanent and still clean", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("Secure", CauseUnresolvedToken)} })}}},
		{name: "0: today's cdkd, cause not reported: exit 0 promises nothing actionable", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("Secure", CauseUnreported)} })}}},
		// What cdkd never checks by design is no uncertainty (seed: "without
		// any uncertainty claim"): exit 0 stays clean; coverage says 0 of N.
		{name: "0: only unsupported resources: nothing compared, still clean", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{{Stack: "A", NotSupported: []Resource{res("Dist", "AWS::CloudFront::Distribution")}}}}},
		{name: "0: only custom resources (skipped): nothing compared, still clean", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{{Stack: "A", Skipped: []Resource{res("Cr", "Custom::Thing")}}}}},
		{name: "0: no stack in the report ([]): incomplete", exit: 0, want: DriftIncomplete, reason: "cdkd checked no stack",
			drift: &Drift{}},
		{name: "0: stacks without a single resource: nothing to compare, clean", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{{Stack: "A"}, {Stack: "B"}}}},
		{name: "0: nothing compared in one stack, everything matched in another: clean", exit: 0, want: DriftClean,
			drift: &Drift{Stacks: []StackDrift{stack("A", nil), {Stack: "B", NotSupported: []Resource{res("Dist", "AWS::CloudFront::Distribution")}}}}},
		{name: "0: an unsupported resource of a type cdkd reads: possibly deleted", exit: 0, want: DriftIncomplete, reason: "nothing could be compared",
			drift: &Drift{Stacks: []StackDrift{{Stack: "A", NotSupported: []Resource{res("Fn", "AWS::Lambda::Function")}}}}},
		{name: "0: possibly deleted beside a compared resource: no run-level reason", exit: 0, want: DriftIncomplete, noReason: true,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotSupported = []Resource{res("Fn", "AWS::Lambda::Function")} })}}},
		{name: "2 with no stack: cdkd's exit code is the reason", exit: 2, want: DriftIncomplete, reason: "exited 2",
			drift: &Drift{}},
		{name: "1 with no stack: an error, never clean", exit: 1, want: DriftError, reason: "lists no drifted resource",
			drift: &Drift{}},
		{name: "0: an unknown cause is shown, and not vouched for", exit: 0, want: DriftIncomplete,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("X", "somethingNew")} })}}},
		{name: "0 with drift in the report: the report wins", exit: 0, want: DriftDrifted,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.Drifted = []DriftedResource{drifted("Q", false)} })}}},
		{name: "1 with a report: drift", exit: 1, want: DriftDrifted,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.Drifted = []DriftedResource{drifted("Q", false)} })}}},
		{name: "1: drift outranks a refused comparison", exit: 1, want: DriftDrifted,
			drift: &Drift{Stacks: []StackDrift{
				stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("X", CauseRefused)} }),
				stack("B", func(s *StackDrift) { s.Drifted = []DriftedResource{drifted("Q", false)} }),
			}}},
		{name: "1: a drifted resource that is also partially compared", exit: 1, want: DriftDrifted,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) {
				s.Drifted = []DriftedResource{drifted("Q", true)}
				s.NotCompared = []NotCompared{{Resource: res("Q", "AWS::SQS::Queue"), ReferencesUnresolved: true, Cause: CauseRefused}}
			})}}},
		{name: "1 without JSON: a crash is an error, never drift", exit: 1, want: DriftError, reason: "no drift report"},
		{name: "1 with a report and no drift: an error, never clean", exit: 1, want: DriftError, reason: "lists no drifted resource",
			drift: &Drift{Stacks: []StackDrift{stack("A", nil)}}},
		{name: "2: refused", exit: 2, want: DriftIncomplete,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("X", CauseRefused)} })}}},
		{name: "2: read failed", exit: 2, want: DriftIncomplete,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("X", CauseReadFailed)} })}}},
		{name: "2: refused beside a permanent token", exit: 2, want: DriftIncomplete,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) {
				s.NotCompared = []NotCompared{nc("X", CauseRefused), nc("Y", CauseUnresolvedToken)}
			})}}},
		{name: "2: today's cdkd, cause not reported", exit: 2, want: DriftIncomplete,
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("X", CauseUnreported)} })}}},
		{name: "2: no resource says which: cdkd's exit code still counts", exit: 2, want: DriftIncomplete, reason: "exited 2",
			drift: &Drift{Stacks: []StackDrift{stack("A", func(s *StackDrift) { s.NotCompared = []NotCompared{nc("Y", CauseUnresolvedToken)} })}}},
		{name: "an exit code cdkd drift does not use", exit: 3, want: DriftError, reason: "exited 3",
			drift: &Drift{Stacks: []StackDrift{stack("A", nil)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := ClassifyRun(tc.drift, tc.exit, readsLambda)
			assert.Equal(t, v.Status, tc.want)
			assert.Equal(t, v.ExitCode, tc.exit)
			if tc.reason != "" {
				assert.Check(t, is.Contains(v.Reason, tc.reason))
			}
			if tc.noReason {
				assert.Check(t, is.Equal(v.Reason, ""))
			}
		})
	}
}

func TestClassifyStackCoverage(t *testing.T) {
	tests := []struct {
		name     string
		stack    StackDrift
		exit     int
		status   DriftStatus
		coverage string
		nothing  bool
	}{
		{
			name:     "the seeds' example",
			stack:    StackDrift{Clean: []Resource{res("A", "T")}, NotCompared: []NotCompared{nc("B", CauseRefused), nc("C", CauseUnresolvedToken)}, NotSupported: []Resource{res("D", "AWS::Foo::Bar")}},
			exit:     2,
			status:   DriftIncomplete,
			coverage: "1 of 3 resources fully checked (2 only partially compared), 1 unsupported",
		},
		{
			name:     "only unsupported: nothing compared",
			stack:    StackDrift{NotSupported: []Resource{res("D", "AWS::Foo::Bar")}},
			status:   DriftClean,
			coverage: "0 of 1 resource checked (1 unsupported)",
			nothing:  true,
		},
		{
			name:     "unsupported and skipped",
			stack:    StackDrift{NotSupported: []Resource{res("D", "AWS::Foo::Bar")}, Skipped: []Resource{res("C", "Custom::X")}},
			status:   DriftClean,
			coverage: "0 of 2 resources checked (1 unsupported, 1 skipped)",
			nothing:  true,
		},
		{
			name: "a partially compared drifted resource listed twice counts once",
			stack: StackDrift{
				Drifted:     []DriftedResource{drifted("Q", true)},
				Clean:       []Resource{res("A", "T")},
				NotCompared: []NotCompared{{Resource: res("Q", "AWS::SQS::Queue"), ReferencesUnresolved: true, Cause: CauseRefused}},
			},
			exit:     1,
			status:   DriftDrifted,
			coverage: "1 of 2 resources fully checked (1 only partially compared)",
		},
		{
			name:     "a drifted resource with unresolved references cdkd did not roll up",
			stack:    StackDrift{Drifted: []DriftedResource{drifted("Q", true)}},
			exit:     1,
			status:   DriftDrifted,
			coverage: "0 of 1 resource fully checked (1 only partially compared)",
		},
		{
			name:     "possibly deleted",
			stack:    StackDrift{Clean: []Resource{res("A", "T")}, NotSupported: []Resource{res("Fn", "AWS::Lambda::Function")}},
			status:   DriftIncomplete,
			coverage: "1 of 1 resource fully checked, 1 unsupported",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := ClassifyStack(tc.stack, tc.exit, readsLambda)
			assert.Equal(t, v.Status, tc.status)
			assert.Equal(t, v.Coverage.String(), tc.coverage)
			assert.Equal(t, v.Coverage.NothingCompared(), tc.nothing)
		})
	}
}

func TestClassifyStackReasonsAndNotes(t *testing.T) {
	s := StackDrift{
		NotCompared: []NotCompared{nc("T", CauseUnresolvedToken), nc("U", CauseUnreported), nc("N", "brandNew"), nc("R", CauseRefused)},
		NotSupported: []Resource{
			res("Fn", "AWS::Lambda::Function"), res("Dist", "AWS::CloudFront::Distribution"),
		},
	}
	v := ClassifyStack(s, 2, readsLambda)
	assert.Equal(t, v.Status, DriftIncomplete)
	assert.DeepEqual(t, v.Reasons, []string{
		"1 resource refused",
		`1 resource not compared (cause "brandNew", unknown to cdkd-action)`,
		"1 resource not compared for a reason cdkd did not report (it exited 2)",
		"1 resource not checked (possibly deleted)",
	})
	assert.DeepEqual(t, v.Notes, []string{"1 resource with an ssm-secure reference cdkd never resolves (permanent)"})
	assert.DeepEqual(t, v.PossiblyDeleted, []Resource{res("Fn", "AWS::Lambda::Function")})
	assert.Equal(t, v.NotCompared, 4)
	assert.Equal(t, v.Unchecked, 4, "refused, unknown, unreported under exit 2, possibly deleted")

	run := ClassifyRun(&Drift{Stacks: []StackDrift{s}}, 2, readsLambda)
	assert.Equal(t, run.NotCompared, 5, "possibly deleted resources were not compared either")
	assert.Equal(t, run.Unchecked, 4)
}
