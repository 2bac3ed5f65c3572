package deploy

import (
	"context"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// dryRun reports what --dry-run found: the gate's decision and the cdkd
// command it would run. It returns done=false when the gate could not
// decide (cdkd or the API failed): that is reported as any failure is.
func (d *run) dryRun(ctx context.Context) (outcome.Outcome, bool) {
	r := d.Opts
	var b strings.Builder
	b.WriteString("## cdkd deploy --dry-run\n\n")
	var refused bool
	switch {
	case d.dryRunArgs != nil:
		b.WriteString("✅ **The gate would deploy.**")
		if d.Rep.Title != "" {
			b.WriteString(" " + reporters.Text(d.Rep.Title) + ".")
		}
		b.WriteString(" Nothing was run. The command it would run:\n\n")
		b.WriteString("```\ncdkd " + strings.Join(quoteArgs(d.dryRunArgs), " ") + "\n```\n")
	case d.plan.nothing:
		b.WriteString("✅ **The gate would deploy, and there is nothing to deploy.** Nothing was run; no cdkd deploy would run.\n")
	case d.Rep.Outcome == reporters.OutcomeRefused:
		fmt.Fprintf(&b, "⛔ **The gate would refuse** (%s): %s\n", reporters.Code(d.Rep.Reason), reporters.Text(d.Rep.Title))
		refused = true
	default:
		return outcome.Outcome{}, false
	}
	if d.Rep.Message != "" {
		b.WriteString("\n" + reporters.Text(r.Secrets.Set.OneLine(d.Rep.Message)) + "\n")
	}
	for _, w := range d.Rep.Warnings {
		b.WriteString("\n> ⚠️ " + reporters.Text(r.Secrets.Set.OneLine(w)) + "\n")
	}
	md := b.String()
	p := &publish.Publication{
		Kind:    "deploy",
		Render:  func(reporters.Budget) string { return md },
		Outputs: map[string]string{publisher.OutputDeployed: "false"},
	}
	// The job summary and the outputs (stdout in a local run): a dry run
	// posts nothing through the API.
	if err := r.Channels.Publisher().Publish(ctx, p, r.Channels.Targets()...); err != nil {
		return outcome.Failed(reason.APIFailed, err), true
	}
	if !r.Local {
		r.Log.Info(r.Secrets.Set.Redact(md)) // the log shows what the summary says
	}
	if refused {
		// The summary says why; the step exits 1 with the gate's reason.
		return outcome.Outcome{Reason: reason.Reason(d.Rep.Reason), Code: reason.ExitChanges}, true
	}
	return outcome.Succeeded(), true
}

// quoteArgs shell-quotes the arguments that need it, so the printed
// command can be pasted.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(c rune) bool {
			return !(c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}
