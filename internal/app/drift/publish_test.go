package drift

import (
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/driftissue"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"gotest.tools/v3/assert"
)

// The drift command decides the tracking issue's state; the issue target
// only carries it out.
func TestIssueContentState(t *testing.T) {
	compared := []model.StackVerdict{{Coverage: model.Coverage{Attempted: 1, Full: 1}}}
	nothing := []model.StackVerdict{{Coverage: model.Coverage{Unsupported: 1}}}
	verdict := func(s model.DriftStatus, stacks []model.StackVerdict) model.RunVerdict {
		return model.RunVerdict{Status: s, Stacks: stacks}
	}
	tests := []struct {
		name string
		rep  reporters.DriftReport
		want github.IssueState
	}{
		{name: "drift opens", rep: reporters.DriftReport{Verdict: verdict(model.DriftDrifted, compared)}, want: github.IssueOpen},
		{name: "clean closes", rep: reporters.DriftReport{Verdict: verdict(model.DriftClean, compared)}, want: github.IssueClose},
		{name: "clean but nothing compared keeps it", rep: reporters.DriftReport{Verdict: verdict(model.DriftClean, nothing)}, want: github.IssueKeep},
		{name: "incomplete keeps it", rep: reporters.DriftReport{Verdict: verdict(model.DriftIncomplete, compared)}, want: github.IssueKeep},
		{name: "an error keeps it", rep: reporters.DriftReport{Verdict: model.ErrorVerdict(1, "boom"), Error: "cdkd drift failed"}, want: github.IssueKeep},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{Options: Options{Config: config.Config{Label: "prod"}}}
			c := r.issueContent(tc.rep, nil)
			assert.Equal(t, c.State, tc.want)
			assert.Equal(t, c.Header.Kind, driftissue.Kind)
			assert.Equal(t, c.Header.Label, "prod")
			assert.Equal(t, c.Header.Extra["status"], string(tc.rep.FinalStatus()))
		})
	}
}
