package reporters

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestDiffOutputs(t *testing.T) {
	counts := model.Counts{Create: 1, Update: 2, Replace: 3, Delete: 4, OutputsAdd: 1, OutputsRemove: 1}
	for _, tc := range []struct {
		name       string
		totals     model.Counts
		hasChanges bool
		sec        []model.SecurityChange
		want       map[string]string
	}{
		{name: "nothing changes", want: map[string]string{
			"has-changes": "false", "to-create": "0", "to-update": "0", "to-replace": "0", "to-delete": "0",
			"outputs-changed": "0", "security-changes": "0", "broadening": "false"}},
		{name: "counts, and a security change that narrows", totals: counts, hasChanges: true,
			sec: []model.SecurityChange{{Status: model.SecurityNarrowed}},
			want: map[string]string{
				"has-changes": "true", "to-create": "1", "to-update": "2", "to-replace": "3", "to-delete": "4",
				"outputs-changed": "2", "security-changes": "1", "broadening": "false"}},
		{name: "an element no one can read counts as broadening", hasChanges: true,
			sec: []model.SecurityChange{{Status: model.SecurityNarrowed}, {Status: model.SecurityUnknown}},
			want: map[string]string{
				"has-changes": "true", "to-create": "0", "to-update": "0", "to-replace": "0", "to-delete": "0",
				"outputs-changed": "0", "security-changes": "2", "broadening": "true"}},
		{name: "broadening", hasChanges: true, sec: []model.SecurityChange{{Status: model.SecurityBroadening}},
			want: map[string]string{
				"has-changes": "true", "to-create": "0", "to-update": "0", "to-replace": "0", "to-delete": "0",
				"outputs-changed": "0", "security-changes": "1", "broadening": "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, DiffOutputs(tc.totals, tc.hasChanges, model.TallySecurity(tc.sec)), tc.want)
		})
	}
}

func TestDriftOutputs(t *testing.T) {
	drifted := model.RunVerdict{Status: model.DriftDrifted, Drifted: 2, NotCompared: 1}
	after := func(s model.DriftStatus) *model.RunVerdict { return &model.RunVerdict{Status: s} }
	for _, tc := range []struct {
		name string
		rep  DriftReport
		want map[string]string
	}{
		{name: "clean", rep: DriftReport{Verdict: model.RunVerdict{Status: model.DriftClean}},
			want: map[string]string{"drift-status": "clean", "drifted-count": "0", "not-compared-count": "0"}},
		{name: "drifted", rep: DriftReport{Verdict: drifted},
			want: map[string]string{"drift-status": "drifted", "drifted-count": "2", "not-compared-count": "1"}},
		{name: "an error has no counts", rep: DriftReport{Verdict: model.ErrorVerdict(1, "boom")},
			want: map[string]string{"drift-status": "error", "drifted-count": "", "not-compared-count": ""}},
		{name: "the detection's result and counts, even when a resolution cleared it",
			rep:  DriftReport{Verdict: drifted, Resolution: &ResolutionReport{Mode: "accept", After: after(model.DriftClean)}},
			want: map[string]string{"drift-status": "drifted", "drifted-count": "2", "not-compared-count": "1"}},
		{name: "the detection after a resolution failed: error, no counts",
			rep:  DriftReport{Verdict: drifted, Resolution: &ResolutionReport{Mode: "revert", AfterError: "boom"}},
			want: map[string]string{"drift-status": "error", "drifted-count": "", "not-compared-count": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, DriftOutputs(tc.rep), tc.want)
		})
	}
}
