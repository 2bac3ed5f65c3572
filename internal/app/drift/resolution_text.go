package drift

import (
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
)

// resolutionText is cdkd's resolution text as it may be shown (see
// redact.PlanText), and logs it.
func (r *run) resolutionText(lines []cdkd.PlanLine, detected model.Drift, hidden []string) []string {
	out := redact.PlanText(lines, detected, hidden, r.Secrets.Set)
	if len(out) == 0 {
		return nil
	}
	r.Log.Group("cdkd's resolution text (from stdout after its JSON and from stderr; values hidden)")
	for _, l := range out {
		r.Out.Write([]byte(l + "\n")) //nolint:errcheck // the log is best effort
	}
	r.Log.EndGroup()
	return out
}
