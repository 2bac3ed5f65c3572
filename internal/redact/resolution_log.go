package redact

import (
	"io"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// planLog stands between a resolution's stderr and the log. The seed's
// cdkd prints the plan there (today's prints it on stdout), and the plan
// prints values in plaintext, a live value the redactor cannot know among
// them: a value line under a resource is logged as "<path>: *** -> ***",
// the later lines of a multi-line value (raw, not indented) are hidden up
// to the next line of the plan's own (cdkd.PlanStructure), and any other
// indented line under a resource is hidden. Runner writes one complete
// line per call.
type planLog struct {
	next  io.Writer
	under bool
	value bool // the lines being read may continue a value
	said  bool // the value's hidden continuation was said
}

func (f *planLog) Write(p []byte) (int, error) {
	line := strings.TrimRight(cdkd.StripANSI(string(p)), "\r\n")
	trim := strings.TrimSpace(line)
	if f.value && !cdkd.PlanStructure(line) {
		if _, next := cdkd.PlanValueStart(line); !next {
			if f.said {
				return len(p), nil
			}
			f.said = true
			line = "    " + HiddenPlanLine
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
			line = "    " + path + ": " + model.Hidden + " -> " + model.Hidden
			f.value = true
		} else {
			line = "    " + HiddenPlanLine
		}
	case !strings.HasPrefix(line, "  "):
		f.under = false
	}
	if _, err := io.WriteString(f.next, line+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

// FilterPlan wraps the log stream of a drift resolution's cdkd run (see
// planLog).
func FilterPlan(w io.Writer) io.Writer { return &planLog{next: w} }
