package app

import (
	"io"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
)

// resolutionText is cdkd's resolution text as it may be shown (see
// redact.PlanText), and logs it.
func (r *driftRun) resolutionText(lines []cdkd.PlanLine, detected model.Drift, hidden []string) []string {
	out := redact.PlanText(lines, detected, hidden, r.set)
	if len(out) == 0 {
		return nil
	}
	r.runner.Group("cdkd's resolution text (from stdout after its JSON and from stderr; values masked)")
	for _, l := range out {
		r.out.Write([]byte(l + "\n")) //nolint:errcheck // the log is best effort
	}
	r.runner.EndGroup()
	return out
}

// planLogFilter stands between a resolution's stderr and the log. The seed's
// cdkd prints the plan there (today's prints it on stdout), and the plan
// prints values in plaintext, a live value the redactor cannot know among
// them: a value line under a resource is logged as "<path>: *** -> ***",
// the later lines of a multi-line value (raw, not indented) are hidden up
// to the next line of the plan's own (cdkd.PlanStructure), and any other
// indented line under a resource is hidden. Runner writes one complete
// line per call.
type planLogFilter struct {
	next  io.Writer
	under bool
	value bool // the lines being read may continue a value
	said  bool // the value's hidden continuation was said
}

func (f *planLogFilter) Write(p []byte) (int, error) {
	line := strings.TrimRight(cdkd.StripANSI(string(p)), "\r\n")
	trim := strings.TrimSpace(line)
	if f.value && !cdkd.PlanStructure(line) {
		if _, next := cdkd.PlanValueStart(line); !next {
			if f.said {
				return len(p), nil
			}
			f.said = true
			line = "    " + redact.HiddenPlanLine
			if _, err := io.WriteString(f.next, line+"\n"); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	f.value, f.said = false, false
	switch {
	case strings.HasPrefix(trim, "→"), strings.HasPrefix(trim, "~"):
		f.under = true
	case f.under && strings.HasPrefix(line, "    ") && !strings.HasPrefix(trim, "!") && !strings.HasPrefix(trim, "⚠"):
		if path, ok := cdkd.PlanValueStart(line); ok && !strings.Contains(line, ": SKIPPED") {
			line = "    " + path + ": " + model.Masked + " -> " + model.Masked
			f.value = true
		} else {
			line = "    " + redact.HiddenPlanLine
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
