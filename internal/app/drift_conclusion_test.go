package app

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

func TestDriftConclusion(t *testing.T) {
	compared := []model.StackVerdict{{Coverage: model.Coverage{Attempted: 1, Full: 1}}}
	nothing := []model.StackVerdict{{Coverage: model.Coverage{Unsupported: 1}}}
	verdict := func(s model.DriftStatus, stacks []model.StackVerdict) model.RunVerdict {
		return model.RunVerdict{Status: s, Stacks: stacks}
	}
	after := func(s model.DriftStatus) *model.RunVerdict { v := verdict(s, compared); return &v }
	tests := []struct {
		name   string
		rep    reporters.DriftReport
		runURL string
		want   string
	}{
		{name: "clean", rep: reporters.DriftReport{Verdict: verdict(model.DriftClean, compared)}, want: "success"},
		// ClassifyRun no longer calls such a run clean; a hand-built verdict
		// still gets no ✓.
		{name: "clean but nothing compared: no ✓", rep: reporters.DriftReport{Verdict: verdict(model.DriftClean, nothing)}, want: "neutral"},
		{name: "nothing compared is incomplete", rep: reporters.DriftReport{Verdict: verdict(model.DriftIncomplete, nothing)}, runURL: "https://x/run", want: "action_required"},
		{name: "no stack checked is incomplete", rep: reporters.DriftReport{Verdict: verdict(model.DriftIncomplete, []model.StackVerdict{})}, runURL: "https://x/run", want: "action_required"},
		{name: "drifted", rep: reporters.DriftReport{Verdict: verdict(model.DriftDrifted, compared)}, want: "failure"},
		{name: "incomplete", rep: reporters.DriftReport{Verdict: verdict(model.DriftIncomplete, compared)}, runURL: "https://x/run", want: "action_required"},
		{name: "incomplete without a run to link", rep: reporters.DriftReport{Verdict: verdict(model.DriftIncomplete, compared)}, want: "neutral"},
		{name: "error", rep: reporters.DriftReport{Verdict: model.ErrorVerdict(1, "boom")}, want: "failure"},
		{name: "resolved: the second detection counts", rep: reporters.DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &reporters.ResolutionReport{Mode: "accept", After: after(model.DriftClean)}}, want: "success"},
		{name: "still drifted after a resolution", rep: reporters.DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &reporters.ResolutionReport{Mode: "revert", After: after(model.DriftDrifted)}}, want: "failure"},
		{name: "partial revert fails whatever came after", rep: reporters.DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &reporters.ResolutionReport{Mode: "revert", Failed: []reporters.ResolutionFailure{{Line: "x"}}, After: after(model.DriftClean)}}, want: "failure"},
		{name: "second detection failed", rep: reporters.DriftReport{Verdict: verdict(model.DriftDrifted, compared),
			Resolution: &reporters.ResolutionReport{Mode: "accept", AfterError: "boom"}}, want: "failure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := driftConclusion(tc.rep, tc.runURL)
			assert.Equal(t, got, tc.want)
		})
	}
}
