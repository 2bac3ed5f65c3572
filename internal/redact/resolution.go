package redact

import (
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// HiddenPlanLine replaces a line of cdkd's resolution plan that may hold a
// value cdkd-action cannot place.
const HiddenPlanLine = "(a line of cdkd's plan, hidden: it may hold a value)"

// Resolution redacts, by value, what a drift resolution (`cdkd drift
// --accept|--revert`) reported: the resources it acted on and cdkd's
// per-resource outcomes, its failures, summary and plan warnings (as
// lines, see Lines), and the errors, made one line. Its plan and output
// text come from PlanText; the detections before and after it are
// redacted by Drift. Run it once, when the resolution is over.
func Resolution(rr *model.DriftResolution, set *secrets.Set) {
	red := set.Redact
	for i := range rr.Resources {
		rr.Resources[i] = red(rr.Resources[i])
	}
	for i := range rr.Failed {
		f := &rr.Failed[i]
		f.Resource, f.Line = red(f.Resource), red(f.Line)
	}
	for i := range rr.Outcomes {
		x := &rr.Outcomes[i]
		x.Stack, x.LogicalID, x.Type = red(x.Stack), red(x.LogicalID), red(x.Type)
		// Redacted before folding, and again after.
		x.Reason = set.OneLineLoose(x.Reason)
		redactToken(x.Token, set)
	}
	rr.Summary, rr.Warnings = Lines(set, rr.Summary), Lines(set, rr.Warnings)
	rr.PlanText, rr.Output = Lines(set, rr.PlanText), Lines(set, rr.Output)
	if rr.Error != "" {
		rr.Error = set.OneLineLoose(rr.Error)
	}
	if rr.AfterError != "" {
		rr.AfterError = set.OneLineLoose(rr.AfterError)
	}
}

// PlanText is cdkd's resolution text (its plan, per-resource lines and
// summary) as it may be shown: never dropped, but redacted like any cdkd
// output, and more. cdkd's plan prints values in plaintext, NoEcho values
// and live values included, which the redactor cannot know by value; so a
// value line shows its values only where the detection report (detected,
// redacted by Drift) showed that same position's values unhidden, and
// otherwise `***`; hidden are the stacks whose every value was hidden.
// The later lines of a multi-line value (cdkd prints them raw, not
// indented) are hidden by position too, whatever they look like: one line
// says so. An indented line under a resource that is neither is hidden
// too: it may be a value's continuation.
func PlanText(lines []cdkd.PlanLine, detected model.Drift, hidden []string, set *secrets.Set) []string {
	if len(lines) == 0 {
		return nil
	}
	out := make([]string, 0, len(lines))
	under := false
	var said *cdkd.PlanLine // the hidden value whose continuation was said hidden
	for i, l := range lines {
		text := l.Text
		trim := strings.TrimSpace(text)
		switch {
		case l.Continuation:
			if visibleAt(detected, hidden, l.Stack, l.LogicalID, l.Path) {
				out = append(out, set.Redact(text))
			} else if said == nil || said.Stack != l.Stack || said.LogicalID != l.LogicalID || said.Path != l.Path {
				said = &lines[i]
				out = append(out, "    "+HiddenPlanLine)
			}
			continue
		case l.Value:
			visible := visibleAt(detected, hidden, l.Stack, l.LogicalID, l.Path)
			before, after := model.Hidden, model.Hidden
			if visible {
				before, after = set.Redact(l.Before), set.Redact(l.After)
			}
			text = "    " + set.Redact(l.Path) + ": " + before + " -> " + after
			if visible && l.After == "" && !strings.Contains(l.Text, " -> ") {
				text = "    " + set.Redact(l.Path) + ": " + before // a multi-line value's first line
			}
			under = true
		case l.Skipped:
			// cdkd's refusal of one property, by name: its words, no value.
			text = "    " + set.Redact(l.Path) + ": SKIPPED — " + set.Redact(l.Before)
			under = true
		case strings.HasPrefix(trim, "→"), strings.HasPrefix(trim, "~"):
			text = set.Redact(text)
			under = true
		case under && strings.HasPrefix(text, "    ") && !strings.HasPrefix(trim, "!") && !strings.HasPrefix(trim, "⚠"):
			text = "    " + HiddenPlanLine
		default:
			under = strings.HasPrefix(text, "  ") && under
			text = set.Redact(text)
		}
		said = nil
		out = append(out, text)
	}
	return out
}

// visibleAt reports whether the detection showed the values of this
// position unhidden: the stack's positions are known, and the change is
// not at a secret position.
func visibleAt(d model.Drift, hidden []string, stack, logicalID, path string) bool {
	for _, s := range d.Stacks {
		if stack != "" && s.Stack != stack {
			continue
		}
		if slices.Contains(hidden, s.Stack) {
			return false
		}
		for _, dr := range s.Drifted {
			if dr.LogicalID != logicalID {
				continue
			}
			for _, c := range dr.Changes {
				if c.Path == path {
					return c.Secret == model.SecretNone && c.HiddenCase == model.HiddenNone &&
						c.State.Text() != model.Hidden && c.AWS.Text() != model.Hidden
				}
			}
		}
	}
	return false
}
