package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/prcomment"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// fromReport renders again a report JSON an earlier run wrote (the
// report-json output), without cdkd: the same Markdown, to the job summary
// and (locally) stdout, and the same JSON to a new report-json file. It
// posts nothing through the API: a re-render is a view, not a review, so it
// must not stand in for the pull request's diff comment. ok is false when
// the file is not a report (cdkd's own JSON), for the caller to read.
func (r *Env) fromReport() (o Outcome, ok bool) {
	b, err := r.fromJSON().bytes(r.cfg.FromJSON)
	if err != nil {
		return failed(ReasonBadInput, err), true
	}
	h, isReport, err := model.ReportHeader(b)
	if !isReport {
		if r.cfg.Command == config.CommandDeploy {
			err := &config.InputError{Input: "from-json", Msg: fmt.Sprintf("deploy always runs cdkd: only a deploy report JSON written by cdkd-action (the report-json output) can be rendered again, and %s is not one", r.cfg.FromJSON)}
			return failed(ReasonBadInput, err), true
		}
		return succeeded(), false // cdkd's own diff or drift JSON: read by the command
	}
	if err := r.reportTakesNoStacks(); err != nil {
		return failed(ReasonBadInput, err), true
	}
	if err == nil && string(h.Kind) != string(r.cfg.Command) {
		err = fmt.Errorf("it holds a %s report; run with command: %s", h.Kind, h.Kind)
	}
	if err == nil {
		err = r.renderReport(b, h.Kind)
	}
	if err != nil {
		err = &config.InputError{Input: "from-json", Msg: fmt.Sprintf("cannot render %s: %v", r.cfg.FromJSON, err)}
		return failed(ReasonBadInput, err), true
	}
	return succeeded(), true
}

// renderReport decodes a report of kind and publishes it offline. The
// report was redacted when written; it is redacted again with this run's
// secrets (mask-values, mask-env) before anything leaves.
func (r *Env) renderReport(b []byte, kind model.Kind) error {
	switch kind {
	case model.KindDiff:
		var res model.DiffResult
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		d := res.Diff()
		redact.Diff(&d, redact.Input{Set: r.set, Placed: true})
		res.Stacks = d.Stacks
		rep := reporters.DiffReportOf(res, prcomment.FullReportHint(res.RunURL))
		p := &publish.Publication{Kind: string(kind), Result: res, Render: func(b reporters.Budget) string { return reporters.DiffMarkdown(rep, b) }}
		if res.Error == "" && res.Totals != nil {
			p.Outputs = reporters.DiffOutputs(*res.Totals, res.HasChanges, d.SecurityTally())
		}
		r.publishView(p)
	case model.KindDrift:
		var res model.DriftResult
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		d := model.Drift{Stacks: res.Stacks}
		redact.Drift(&d, redact.Input{Set: r.set, Placed: true})
		res.Stacks = d.Stacks
		rep := reporters.DriftReportOf(res, prcomment.FullReportHint(res.RunURL))
		r.publishView(&publish.Publication{Kind: string(kind), Result: res, Render: func(b reporters.Budget) string { return reporters.DriftMarkdown(rep, b) }})
	case model.KindDeploy:
		var res model.DeployResult
		if err := json.Unmarshal(b, &res); err != nil {
			return err
		}
		redact.Deploy(&res, redact.Input{Set: r.set, Placed: true})
		rep := reporters.DeployReportOf(res, prcomment.FullReportHint(res.RunURL))
		r.publishView(&publish.Publication{Kind: string(kind), Result: res, Render: func(b reporters.Budget) string { return reporters.DeployMarkdown(rep, b) }})
	}
	return nil
}

// publishView publishes a re-rendered report to the targets that need no
// API: a view is not a review.
func (r *Env) publishView(p *publish.Publication) {
	// Only API targets return errors, and there are none.
	_ = r.pub().Publish(context.Background(), p, r.targets()...)
}
