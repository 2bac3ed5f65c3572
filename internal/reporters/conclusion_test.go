package reporters

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestDiffConclusion(t *testing.T) {
	update := model.Diff{Stacks: []model.StackDiff{{Stack: "Api", Region: "us-east-1", Changes: []model.ResourceChange{
		{LogicalID: "Fn", ChangeType: model.ChangeUpdate, ResourceType: "AWS::Lambda::Function"}}}}}
	unchanged := model.Diff{Stacks: []model.StackDiff{{Stack: "Api", Region: "us-east-1"}}}
	for _, tc := range []struct {
		name           string
		rep            DiffReport
		d              *model.Diff
		failOnChanges  bool
		want, wantText string
	}{
		{name: "cdkd failed", rep: DiffReport{Error: "boom"}, d: &update, want: "failure", wantText: "cdkd diff failed"},
		{name: "no diff to review", want: "failure", wantText: "cdkd diff failed"},
		{name: "a shard is missing", rep: DiffReport{Missing: "shard 2 of 3"}, d: &update, want: "failure", wantText: "Incomplete: not every shard reported"},
		{name: "no stack: no ✓", d: &model.Diff{}, want: "neutral", wantText: "No stack diffed"},
		{name: "no stack, even with fail-on-changes", d: &model.Diff{}, failOnChanges: true, want: "neutral", wantText: "No stack diffed"},
		{name: "nothing changes", d: &unchanged, failOnChanges: true, want: "success", wantText: "No changes"},
		{name: "changes", d: &update, want: "neutral", wantText: "1 to update"},
		{name: "changes and fail-on-changes", d: &update, failOnChanges: true, want: "failure", wantText: "1 to update"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, title := DiffConclusion(tc.rep, tc.d, tc.failOnChanges)
			assert.Equal(t, got, tc.want)
			assert.Equal(t, title, tc.wantText)
		})
	}
}

func TestDeployConclusion(t *testing.T) {
	for _, tc := range []struct {
		outcome DeployOutcome
		want    string
	}{
		{OutcomeDeployed, "success"},
		{OutcomeVerified, "success"},
		{OutcomeCancelled, "cancelled"},
		{OutcomeRefused, "failure"},
		{OutcomeFailed, "failure"},
		{OutcomePartial, "failure"},
		{OutcomeLocked, "failure"},
		{"", "failure"},
	} {
		assert.Equal(t, DeployConclusion(tc.outcome), tc.want, string(tc.outcome))
	}
}

func TestDriftConclusion(t *testing.T) {
	compared := []model.StackVerdict{{Coverage: model.Coverage{Attempted: 1, Full: 1}}}
	nothing := []model.StackVerdict{{Coverage: model.Coverage{Unsupported: 1}}}
	verdict := func(s model.DriftStatus, stacks []model.StackVerdict) model.RunVerdict {
		return model.RunVerdict{Status: s, Stacks: stacks}
	}
	after := func(s model.DriftStatus) *model.RunVerdict { v := verdict(s, compared); return &v }
	tests := []struct {
		name   string
		rep    DriftReport
		runURL string
		want   string
	}{
		{name: "clean", rep: DriftReport{Verdict: verdict(model.DriftClean, compared)}, want: "success"},
		// ClassifyRun no longer calls such a run clean; a hand-built verdict
		// still gets no ✓.
		{name: "clean but nothing compared: no ✓", rep: DriftReport{Verdict: verdict(model.DriftClean, nothing)}, want: "neutral"},
		{name: "nothing compared is incomplete", rep: DriftReport{Verdict: verdict(model.DriftIncomplete, nothing)}, runURL: "https://x/run", want: "action_required"},
		{name: "no stack checked is incomplete", rep: DriftReport{Verdict: verdict(model.DriftIncomplete, []model.StackVerdict{})}, runURL: "https://x/run", want: "action_required"},
		{name: "drifted", rep: DriftReport{Verdict: verdict(model.DriftDrifted, compared)}, want: "failure"},
		{name: "incomplete", rep: DriftReport{Verdict: verdict(model.DriftIncomplete, compared)}, runURL: "https://x/run", want: "action_required"},
		{name: "incomplete without a run to link", rep: DriftReport{Verdict: verdict(model.DriftIncomplete, compared)}, want: "neutral"},
		{name: "error", rep: DriftReport{Verdict: model.ErrorVerdict(1, "boom")}, want: "failure"},
		{name: "resolved: the second detection counts", rep: DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &ResolutionReport{Mode: "accept", After: after(model.DriftClean)}}, want: "success"},
		{name: "still drifted after a resolution", rep: DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &ResolutionReport{Mode: "revert", After: after(model.DriftDrifted)}}, want: "failure"},
		{name: "partial revert fails whatever came after", rep: DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &ResolutionReport{Mode: "revert", Failed: []ResolutionFailure{{Line: "x"}}, After: after(model.DriftClean)}}, want: "failure"},
		{name: "a refused revert fails", rep: DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &ResolutionReport{Mode: "revert", Outcomes: []model.ResolvedResource{{LogicalID: "A", Outcome: model.ResolutionRefused}}, After: after(model.DriftClean)}}, want: "failure"},
		{name: "second detection failed", rep: DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &ResolutionReport{Mode: "accept", AfterError: "boom"}}, want: "failure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := DriftConclusion(tc.rep, tc.runURL)
			assert.Equal(t, got, tc.want)
		})
	}
}

func TestDeployCheckTitle(t *testing.T) {
	rep := func(o DeployOutcome, title string) DeployReport {
		r := deployBase(o)
		r.Title = title
		return r
	}
	for _, tc := range []struct {
		name string
		rep  DeployReport
		want string
	}{
		{name: "a refusal: the gate's own words", rep: rep(OutcomeRefused, "Diff changed since review"), want: "Diff changed since review"},
		{name: "a refusal without words: the headline", rep: rep(OutcomeRefused, ""), want: "Deploy refused"},
		{name: "a failure: the headline, with its words", rep: rep(OutcomeFailed, "boom"), want: "Deploy failed: boom"},
		{name: "locked: the headline", rep: rep(OutcomeLocked, ""), want: "Deploy not started: state locked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, DeployCheckTitle(tc.rep), tc.want)
		})
	}
}
