package reporters

import (
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// outcomeGroups orders what became of resources, worst first, with each
// group's heading and what to do.
var outcomeGroups = []struct {
	outcome    model.ResolutionOutcome
	head, todo string
}{
	{model.ResolutionFailed, "❌ **Failed**", "cdkd's error is shown; inspect it and retry once its cause is resolved."},
	{model.ResolutionUpdateNotSupported, "⊘ **Update not supported**", "the type cannot be updated in place. **To fix:** re-deploy the stack with `cdkd deploy --replace` (or destroy and re-deploy)."},
	{model.ResolutionRefused, "🚫 **Not reverted (refused by cdkd-action)**", "a revert would write a `{{resolve:ssm-secure:…}}` token literal over the value AWS holds, or nothing shows that it would not (each resource says which), and cdkd reverts a whole stack at a time. Set `drift-allow-token-overwrite: true` to revert anyway."},
	{model.ResolutionSkipped, "⏭️ **Skipped by cdkd**", "cdkd refused these (a secret-bearing property whose live value it could not identify) and warned by name; the drift is still reported on the next run."},
	{model.ResolutionNotCompared, "⚠️ **Not compared**", "cdkd did not compare these, so it did not resolve them."},
	{outcomeRevertedStillDrifted, "⚠️ **cdkd said reverted, still drifted**", "cdkd printed ✓ reverted, and the detection after it still finds the drift: the property was not changed (an immutable property, such as an SQS queue's name, cdkd cannot update in place; cdkd 0.284.40 reports it reverted). `cdkd deploy --replace` leaves it too, as it sees no change; for a value behind a secret reference, new reference text (the secret's version pinned) makes a deploy replace the resource."},
	{model.ResolutionUnreported, "❔ **No line from cdkd**", "drifted, but cdkd printed nothing about them: not counted as resolved (the detection after the resolution says where they stand)."},
	{model.ResolutionReverted, "✅ **Reverted**", ""},
	{model.ResolutionAccepted, "✅ **Accepted**", ""},
}

// outcomeRevertedStillDrifted is a resource cdkd reported reverted that
// the detection after the revert still finds drifted: listed once, there.
const outcomeRevertedStillDrifted model.ResolutionOutcome = "revertedStillDrifted"

// outcomes lists what cdkd's lines say became of each resource, by
// outcome, with counts from those lines.
func (x *driftWriter) outcomes(res *ResolutionReport) {
	still := stillDrifted(res)
	for _, g := range outcomeGroups {
		var list []model.ResolvedResource
		for _, o := range res.Outcomes {
			outcome := o.Outcome
			if outcome == model.ResolutionReverted && still[o.Name()] {
				outcome = outcomeRevertedStillDrifted
			}
			if outcome == g.outcome {
				list = append(list, o)
			}
		}
		if len(list) == 0 || x.w.Over() {
			continue
		}
		x.w.Block()
		x.w.Write(g.head, " (", strconv.Itoa(len(list)), ")")
		if g.todo != "" {
			x.w.Write(": ", g.todo)
		}
		x.w.WriteString("\n")
		for i, o := range list {
			if x.w.Over() {
				return
			}
			if i == x.listLimit() {
				x.w.WriteString(moreItems(len(list) - listMax))
				break
			}
			x.w.Write("- ", nameCode(o.Name()))
			if o.Type != "" {
				x.w.Write(" · ", nameCode(o.Type))
			}
			sep := ": "
			if t := tokenCaseText(o.Token); t != "" {
				x.w.Write(sep, t)
				sep = " "
			}
			if o.Reason != "" && x.rung.details {
				reason, _ := cutRunes(o.Reason, 500)
				x.w.Write(sep, Text(reason))
			}
			x.w.WriteString("\n")
		}
	}
}

// stillDrifted names ("Stack/Id") the resources the detection after the
// resolution still finds drifted.
func stillDrifted(res *ResolutionReport) map[string]bool {
	out := map[string]bool{}
	if res.After == nil || res.After.Status != model.DriftDrifted {
		return out
	}
	for _, s := range res.AfterDrift.Stacks {
		for _, d := range s.Drifted {
			out[s.Stack+"/"+d.LogicalID] = true
		}
	}
	return out
}

// planWarnings shows the warnings cdkd's plan puts before its prompt,
// which `-y` would otherwise skip unseen.
func (x *driftWriter) planWarnings(ws []string) {
	if len(ws) == 0 || !x.rung.details {
		return
	}
	x.w.Block()
	x.w.WriteString("⚠️ **cdkd's plan warns** (from `--dry-run`, before anything was reverted):\n")
	for i, l := range ws {
		if x.w.Over() || i == 30 {
			return
		}
		l, _ = cutRunes(l, 500)
		x.w.Write("- ", Text(l), "\n")
	}
}

// resolutionText shows cdkd's text (redacted, values hidden) in a closed
// fenced block: never dropped, out of the way.
func (x *driftWriter) resolutionText(what string, lines []string) {
	if len(lines) == 0 || !x.rung.resolutionText {
		return
	}
	if n := x.rung.resolutionLines; n > 0 {
		lines = lines[:min(len(lines), n)]
	}
	var b strings.Builder
	for _, l := range lines {
		l, more := cutRunes(l, 500)
		b.WriteString(l)
		if more > 0 {
			b.WriteString(" … " + moreChars(more))
		}
		b.WriteString("\n")
	}
	x.w.Block()
	x.w.Write(Details(what+" ("+countOf(len(lines), "line", "lines")+")", false, Fence(b.String(), "text")), "\n")
}
