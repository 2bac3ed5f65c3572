package reporters

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/golden"
)

// Every golden case rendered at every level of the drift ladder on a
// limited budget, one golden per case: the goldens pin what each level
// shows (resolution text and summaries, plan warnings, outcome reasons,
// causes, caps), beyond the one report drift_level-N pins.
func TestDriftLadderEveryCase(t *testing.T) {
	for name, r := range driftGoldenCases(t) {
		t.Run(name, func(t *testing.T) {
			levels, render, _ := driftRenderer(r, CommentBudget, false)
			var all strings.Builder
			for level := range levels {
				w := NewWriter(Unlimited)
				render(w, level)
				fmt.Fprintf(&all, "===== level %d =====\n%s", level, w.String())
			}
			golden.Assert(t, all.String(), "drift_ladder_"+name+".golden")
		})
	}
}
