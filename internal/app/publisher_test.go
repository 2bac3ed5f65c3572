package app

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/driftissue"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// apiTarget stands for the API targets a command hands to targets.
type apiTarget struct{}

func (apiTarget) Policy(*publish.View) publish.Policy { return publish.Policy{} }
func (apiTarget) Publish(context.Context, *publish.Publisher, *publish.View, *publish.Written) error {
	return nil
}

// A local run is the target list without the API targets, and so is a
// shard of a matrix or a run without a token: no command decides that
// itself.
func TestTargetsLeaveOutTheAPIWhereNothingIsPosted(t *testing.T) {
	offline := []string{"*publish.ReportJSON", "*publish.Summary", "publish.Outputs"}
	tests := []struct {
		name    string
		local   bool
		publish bool
		api     github.API
		// reportJSON is --report-json.
		reportJSON string
		want       []string
	}{
		{name: "in a workflow", publish: true, api: struct{ github.API }{}, want: append(offline, "app.apiTarget")},
		// A local run keeps no report JSON unless asked (--report-json) or
		// in a workspace: it would leave a folder behind each time.
		{name: "local run", local: true, publish: true, api: struct{ github.API }{}, want: append(offline[1:], "*publish.Stdout")},
		{name: "local run asked for the report JSON", local: true, reportJSON: "r.json", publish: true, api: struct{ github.API }{}, want: append(offline, "*publish.Stdout")},
		{name: "a shard of a matrix", publish: false, api: struct{ github.API }{}, want: offline},
		{name: "no token", publish: true, want: offline},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testEnv(t, &bytes.Buffer{})
			r.local, r.cfg.Publish, r.api, r.cfg.CLI.ReportJSON = tc.local, tc.publish, tc.api, tc.reportJSON
			var got []string
			for _, target := range r.targets(apiTarget{}) {
				got = append(got, fmt.Sprintf("%T", target))
			}
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

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
			r := &driftRun{Env: testEnv(t, &bytes.Buffer{})}
			r.cfg.Label = "prod"
			c := r.issueContent(tc.rep, nil)
			assert.Equal(t, c.State, tc.want)
			assert.Equal(t, c.Header.Kind, driftissue.Kind)
			assert.Equal(t, c.Header.Label, "prod")
			assert.Equal(t, c.Header.Extra["status"], string(tc.rep.FinalStatus()))
		})
	}
}
