package cdkdexec

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// maxHeldBytes bounds how much of cdkd's output is held back while
// discovery is unfinished: a runner has finite memory, and cdkd's log is
// not the report.
const maxHeldBytes = 1 << 20

// heldOutput is cdkd's stderr of one run, held back until every secret the
// run can reveal is known (the values its report shows at secret
// positions, the state of the stacks it reported), then printed redacted.
// Past maxHeldBytes lines are dropped, counted, and said: never printed
// unredacted.
type heldOutput struct {
	title   string
	mu      sync.Mutex
	lines   []string
	size    int
	dropped int
}

// Write takes one complete line (cdkd.Runner writes one per call).
func (h *heldOutput) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped > 0 || h.size+len(p) > maxHeldBytes {
		h.dropped++
		return len(p), nil
	}
	h.lines = append(h.lines, string(p))
	h.size += len(p)
	return len(p), nil
}

// RunHeld runs cdkd like Run, but holds its stderr back until FlushHeld:
// call that once discovery has finished. Every path out of the command
// flushes (App.Run does), so nothing held is lost.
func (x *Executor) RunHeld(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	x.FlushHeld() // one run's output at a time, in order
	h := &heldOutput{title: "cdkd " + strings.Join(args, " ")}
	x.held = h
	runner.Stderr = h
	return runner.Run(ctx, args...)
}

// FlushHeld prints the output held back, redacted with every value known
// now, inside stop-commands as Run does, and says what overflowed.
func (x *Executor) FlushHeld() {
	h := x.held
	if h == nil {
		return
	}
	x.held = nil
	if x.BeforeFlush != nil {
		x.BeforeFlush()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	stream := secrets.NewLooseLineWriter(x.Out, x.Secrets)
	x.Log.Group(h.title)
	resume := x.Log.StopCommands()
	for _, line := range h.lines {
		_, _ = stream.Write([]byte(line))
	}
	stream.Close()
	resume()
	x.Log.EndGroup()
	if h.dropped > 0 {
		x.Log.Warning(fmt.Sprintf("%d more line(s) of cdkd's output are hidden: they were held back until every secret was known, and the hold is bounded at %d bytes; cdkd's report is not affected", h.dropped, maxHeldBytes))
	}
}
