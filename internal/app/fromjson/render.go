package fromjson

import (
	"encoding/json"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Render renders again a report JSON an earlier run wrote (the
// report-json output), without cdkd: the same Markdown, to the job summary
// and (locally) stdout, and the same JSON to a new report-json file. It
// posts nothing through the API: a re-render is a view, not a review, so it
// must not stand in for the pull request's diff comment. done is false when
// the file is not a report (cdkd's own JSON), for command to read; err is
// bad input (the file, a report of another command, or stacks named for a
// report, which is rendered whole).
func (f *File) Render(command config.Command, stacks []string, set *secrets.Set, channels *publisher.Channels) (done bool, err error) {
	b, err := f.Bytes()
	if err != nil {
		return true, err
	}
	h, isReport, err := model.ReportHeader(b)
	if !isReport {
		if command == config.CommandDeploy {
			return true, &config.InputError{Input: "from-json", Msg: fmt.Sprintf("deploy always runs cdkd: only a deploy report JSON written by cdkd-action (the report-json output) can be rendered again, and %s is not one", f.Path)}
		}
		return false, nil // cdkd's own diff or drift JSON: read by the command
	}
	if err := reportTakesNoStacks(f.Path, stacks); err != nil {
		return true, err
	}
	if err == nil && string(h.Kind) != string(command) {
		err = fmt.Errorf("it holds a %s report; run with command: %s", h.Kind, h.Kind)
	}
	if err == nil {
		err = renderReport(b, h.Kind, set, channels)
	}
	if err != nil {
		return true, &config.InputError{Input: "from-json", Msg: fmt.Sprintf("cannot render %s: %v", f.Path, err)}
	}
	return true, nil
}

// renderReport decodes a report of kind and publishes it offline. The
// report was redacted when written; it is redacted again with this run's
// secrets (mask-values, mask-env) before anything leaves.
func renderReport(b []byte, kind model.Kind, set *secrets.Set, channels *publisher.Channels) error {
	switch kind {
	case model.KindDiff:
		var res model.DiffResult
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		d := res.Diff()
		redact.Diff(&d, redact.Input{Set: set, Placed: true})
		res.Stacks = d.Stacks
		rep := reporters.DiffReportOf(res, prcomment.FullReportHint(res.RunURL))
		// The run's summary said where the picture is at its end, once the
		// comment was written; the report records what it said.
		summary := rep
		summary.PictureShown = ""
		p := &publish.Publication{Kind: string(kind), Result: res, Render: func(b reporters.Budget) string { return reporters.DiffMarkdown(summary, b) }}
		if rep.PictureIn != "" && rep.PictureShown != "" {
			p.SummaryNote = func(*publish.Written) string { return reporters.PicturePointer(rep.PictureIn, rep.PictureShown) }
		}
		if res.Error == "" && res.Totals != nil {
			p.Outputs = reporters.DiffOutputs(*res.Totals, res.HasChanges, d.SecurityTally())
		}
		channels.PublishView(p)
	case model.KindDrift:
		var res model.DriftResult
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		d := model.Drift{Stacks: res.Stacks}
		redact.Drift(&d, redact.Input{Set: set, Placed: true})
		res.Stacks = d.Stacks
		rep := reporters.DriftReportOf(res, prcomment.FullReportHint(res.RunURL))
		channels.PublishView(&publish.Publication{Kind: string(kind), Result: res, Render: func(b reporters.Budget) string { return reporters.DriftMarkdown(rep, b) }})
	case model.KindDeploy:
		var res model.DeployResult
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		redact.Deploy(&res, redact.Input{Set: set, Placed: true})
		rep := reporters.DeployReportOf(res, prcomment.FullReportHint(res.RunURL))
		channels.PublishView(&publish.Publication{Kind: string(kind), Result: res, Render: func(b reporters.Budget) string { return reporters.DeployMarkdown(rep, b) }})
	}
	return nil
}
