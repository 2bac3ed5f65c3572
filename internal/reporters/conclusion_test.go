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
