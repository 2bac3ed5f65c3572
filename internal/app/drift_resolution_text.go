package app

import (
	"io"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// hiddenPlanLine replaces a plan line that may hold a value cdkd-action
// cannot place.
const hiddenPlanLine = "(a line of cdkd's plan, hidden: it may hold a value)"

// resolutionText is cdkd's resolution text (its plan, per-resource lines
// and summary) as it may be shown, and logs it: never dropped, but
// redacted like any cdkd output, and more. cdkd's plan prints values in
// plaintext, NoEcho values and live values included, which the redactor
// cannot know by value; so a value line shows its values only where the
// detection report showed that same position's values unmasked, and
// otherwise `***`. An indented line under a resource that is not a value
// line is hidden too: it may be a value's continuation.
func (r *Env) resolutionText(lines []cdkd.PlanLine, detected model.Drift, hidden []string) []string {
	if len(lines) == 0 {
		return nil
	}
	out := make([]string, 0, len(lines))
	under := false
	for _, l := range lines {
		text := l.Text
		trim := strings.TrimSpace(text)
		switch {
		case l.Value:
			before, after := model.Masked, model.Masked
			if visibleAt(detected, hidden, l.Stack, l.LogicalID, l.Path) {
				before, after = r.set.Redact(l.Before), r.set.Redact(l.After)
			}
			text = "    " + r.set.Redact(l.Path) + ": " + before + " -> " + after
			under = true
		case strings.HasPrefix(trim, "→"), strings.HasPrefix(trim, "~"):
			text = r.set.Redact(text)
			under = true
		case under && strings.HasPrefix(text, "    ") && !strings.HasPrefix(trim, "!") && !strings.HasPrefix(trim, "⚠"):
			text = "    " + hiddenPlanLine
		default:
			under = strings.HasPrefix(text, "  ") && under
			text = r.set.Redact(text)
		}
		out = append(out, text)
	}
	r.runner.Group("cdkd's resolution text (from stdout after its JSON and from stderr; values masked)")
	for _, l := range out {
		r.out.Write([]byte(l + "\n")) //nolint:errcheck // the log is best effort
	}
	r.runner.EndGroup()
	return out
}

// visibleAt reports whether the detection showed the values of this
// position unmasked: the stack's positions are known, and the change is
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
					return c.Secret == model.SecretNone && c.MaskCase == model.MaskNone &&
						c.State.Text() != model.Masked && c.AWS.Text() != model.Masked
				}
			}
		}
	}
	return false
}

// planLogFilter stands between a resolution's stderr and the log. The seed's
// cdkd prints the plan there (today's prints it on stdout), and the plan
// prints values in plaintext, a live value the redactor cannot know among
// them: a value line under a resource is logged as "<path>: *** -> ***",
// and any other indented line under it is hidden. Runner writes one
// complete line per call.
type planLogFilter struct {
	next  io.Writer
	under bool
}

func (f *planLogFilter) Write(p []byte) (int, error) {
	line := strings.TrimRight(cdkd.StripANSI(string(p)), "\r\n")
	trim := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(trim, "→"), strings.HasPrefix(trim, "~"):
		f.under = true
	case f.under && strings.HasPrefix(line, "    ") && !strings.HasPrefix(trim, "!") && !strings.HasPrefix(trim, "⚠"):
		path, _, _ := strings.Cut(trim, ": ")
		if strings.Contains(trim, " -> ") {
			line = "    " + path + ": " + model.Masked + " -> " + model.Masked
		} else {
			line = "    " + hiddenPlanLine
		}
	case !strings.HasPrefix(line, "  "):
		f.under = false
	}
	if _, err := io.WriteString(f.next, line+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

// filterPlan wraps a log stream with a planLogFilter.
func filterPlan(w io.Writer) io.Writer { return &planLogFilter{next: w} }
