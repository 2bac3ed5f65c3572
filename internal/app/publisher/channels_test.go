package publisher

import (
	"context"
	"fmt"
	"io"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
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
		{name: "in a workflow", publish: true, api: struct{ github.API }{}, want: append(offline, "publisher.apiTarget")},
		// A local run keeps no report JSON unless asked (--report-json) or
		// in a workspace: it would leave a folder behind each time.
		{name: "local run", local: true, publish: true, api: struct{ github.API }{}, want: append(offline[1:], "*publish.Stdout")},
		{name: "local run asked for the report JSON", local: true, reportJSON: "r.json", publish: true, api: struct{ github.API }{}, want: append(offline, "*publish.Stdout")},
		{name: "a shard of a matrix", publish: false, api: struct{ github.API }{}, want: offline},
		{name: "no token", publish: true, want: offline},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "GITHUB_STEP_SUMMARY" {
					return "summary.md" // never written: only the target list is read
				}
				return ""
			}
			var cfg config.Config
			cfg.Publish, cfg.CLI.ReportJSON = tc.publish, tc.reportJSON
			c := &Channels{Config: &cfg, GitHub: &ghctx.Context{}, Local: tc.local, API: tc.api, Getenv: getenv,
				Log: workflow.New(io.Discard, getenv), Secrets: secrets.NewSet()}
			var got []string
			for _, target := range c.Targets(apiTarget{}) {
				got = append(got, fmt.Sprintf("%T", target))
			}
			assert.DeepEqual(t, got, tc.want)
		})
	}
}
