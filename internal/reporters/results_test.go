package reporters

import (
	"encoding/json"
	"reflect"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// assertAllSet fails when a field of the report is zero: a field added to a
// report must be added to its result too (and to this test's sample), or a
// re-render from the report JSON would silently lose it.
func assertAllSet(t *testing.T, v any, except ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		name := rv.Type().Field(i).Name
		if rv.Field(i).IsZero() && !contains(except, name) {
			t.Errorf("%s.%s is not set in the sample", rv.Type().Name(), name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// viaJSON is what a later run reads back from the report-json file.
func viaJSON[T any](t *testing.T, v T) T {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	var back T
	assert.NilError(t, json.Unmarshal(b, &back))
	return back
}

func TestReportsSurviveTheirJSON(t *testing.T) {
	const hint = "the job summary"
	t.Run("diff", func(t *testing.T) {
		d := model.Diff{Stacks: []model.StackDiff{{Stack: "A", Region: "us-east-1", Changes: []model.ResourceChange{
			{LogicalID: "Q", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SQS::Queue",
				PropertyChanges: []model.PropertyChange{{Path: "Name", Old: model.StringValue("a"), New: model.StringValue("b")}}}}}}}
		rep := DiffReport{Diff: d, Label: "prod", HeadSHA: "1111111", RunURL: "https://x/run", CdkdVersion: "1.0", CdkdSource: "bundled", Digest: d.Digest(), FingerprintKeyID: "k2:abc", Shard: &model.ShardRef{ID: "1-of-2", Plan: "0123456789ab"}, Missing: "shard 2-of-2 has no report",
			FullReportHint: hint, Notes: []string{"a note"}, PictureIn: "the PR comment", PictureShown: PictureReduced}
		// The picture is a view, drawn by the run that posts the comment from
		// the assembly it has, and never part of the report JSON; where it
		// is, is. The layout is the latest for everything but a kept review,
		// which the deploy renders again from the comment, not from this JSON.
		assertAllSet(t, rep, "Error", "StderrTail", "Picture", "Layout")
		back := DiffReportOf(viaJSON(t, rep.Result()), hint)
		assert.DeepEqual(t, back.Diff.Stacks[0].Changes, rep.Diff.Stacks[0].Changes)
		assert.Equal(t, DiffMarkdown(back, Unlimited), DiffMarkdown(rep, Unlimited))

		failed := DiffReport{Label: "prod", HeadSHA: "1111111", RunURL: "https://x/run", CdkdVersion: "1.0", FullReportHint: hint,
			Error: "boom", StderrTail: []string{"line"}, Notes: []string{"a note"}}
		back = DiffReportOf(viaJSON(t, failed.Result()), hint)
		assert.Equal(t, len(back.Diff.Stacks), 0)
		back.Diff = failed.Diff
		assert.DeepEqual(t, back, failed)
	})
	t.Run("drift", func(t *testing.T) {
		drift := model.Drift{Stacks: []model.StackDrift{{Stack: "A", Region: "us-east-1",
			Drifted: []model.DriftedResource{{Resource: model.Resource{LogicalID: "T", Type: "AWS::SNS::Topic"},
				Changes: []model.DriftChange{{Path: "DisplayName", State: model.StringValue("a"), AWS: model.StringValue("b")}}}}}}}
		after := model.ClassifyRun(&model.Drift{Stacks: []model.StackDrift{}}, 0, cdkd.ReadsCurrentState)
		rep := DriftReport{Drift: drift, Verdict: model.ClassifyRun(&drift, 1, cdkd.ReadsCurrentState), Label: "nightly", SHA: "2222222", RunURL: "https://x/run",
			CdkdVersion: "1.0", CdkdSource: "bundled", Shard: &model.ShardRef{ID: "1-of-2", Plan: "0123456789ab"}, Missing: "shard 2-of-2 has no report", FullReportHint: hint, Error: "partly failed", StderrTail: []string{"line"}, CauseNote: "from state",
			Notes: []string{"a note"}, HiddenStacks: []string{"A"},
			Resolution: &ResolutionReport{Mode: "accept", Resources: []string{"A/T"}, After: &after}}
		assertAllSet(t, rep)
		back := DriftReportOf(viaJSON(t, rep.Result()), hint)
		assert.Equal(t, DriftMarkdown(back, Unlimited), DriftMarkdown(rep, Unlimited))
		assert.Equal(t, back.FinalStatus(), rep.FinalStatus())
	})
	t.Run("deploy", func(t *testing.T) {
		rep := DeployReport{Label: "prod", Outcome: OutcomePartial, Title: "Partially deployed", Message: "why", Reason: "partial",
			SHA: "3333333", RunURL: "https://x/run", CdkdVersion: "1.0", CdkdSource: "bundled", Digest: "v1:abc", PR: 8, ReviewedSHA: "4444444",
			ReviewURL: "https://x/pull/8", Reviewed: true, Warnings: []string{"w"}, Comparison: &model.Comparison{Detailed: true},
			ComparisonNote: "n", Destructive: []DestructiveChange{{Stack: "A", LogicalID: "Q", Action: model.ActionDelete}},
			Lock:       &DeployLock{Stack: "A", Unlock: "cdkd force-unlock A"},
			Stacks:     []DeployedStack{{Stack: "A", Created: 1, Outputs: []StackOutput{{Name: "Url", Value: "https://x"}, {Name: "Token", Value: "s3cr3t", Secret: true}}}},
			StderrTail: []string{"line"}, FullReportHint: hint,
			Group: &model.GroupCheck{Branch: "main", PullRequests: []model.GroupPullRequest{{Number: 8, ReviewedSHA: "4444444", Reason: "stale-review", Problem: "p"}}}}
		assertAllSet(t, rep)
		res := viaJSON(t, rep.Result())
		assert.Equal(t, res.Stacks[0].Outputs[1].Value, model.Hidden, "a secret output's value never leaves")
		assert.Equal(t, rep.Stacks[0].Outputs[1].Value, "s3cr3t", "Result does not modify the report")
		back := DeployReportOf(res, hint)
		assert.Equal(t, DeployMarkdown(back, Unlimited), DeployMarkdown(rep, Unlimited))
		back.Stacks[0].Outputs[1].Value = "s3cr3t"
		assert.DeepEqual(t, back, rep)
	})
}
