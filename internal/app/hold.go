package app

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
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
// unmasked.
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

// runCdkdHeld runs cdkd like runCdkd, but holds its stderr back until
// flushHeld: call that once discovery has finished. Every path out of the
// command flushes (fail and Run do), so nothing held is lost.
func (r *Env) runCdkdHeld(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	r.flushHeld() // one run's output at a time, in order
	h := &heldOutput{title: "cdkd " + strings.Join(args, " ")}
	r.held = h
	runner.Stderr = h
	return runner.Run(ctx, args...)
}

// flushHeld prints the output held back, redacted with every value known
// now, inside stop-commands as runCdkd does, and says what overflowed.
func (r *Env) flushHeld() {
	h := r.held
	if h == nil {
		return
	}
	r.held = nil
	r.registerMasks()
	h.mu.Lock()
	defer h.mu.Unlock()
	stream := secrets.NewLooseLineWriter(r.out, r.set)
	r.runner.Group(h.title)
	resume := r.runner.StopCommands()
	for _, line := range h.lines {
		_, _ = stream.Write([]byte(line))
	}
	stream.Close()
	resume()
	r.runner.EndGroup()
	if h.dropped > 0 {
		r.runner.Warning(fmt.Sprintf("%d more line(s) of cdkd's output are hidden: they were held back until every secret was known, and the hold is bounded at %d bytes; cdkd's report is not affected", h.dropped, maxHeldBytes))
	}
}

// redactDiff redacts a diff in place, fail closed (see redact.Diff),
// registers the values it hid by position before anything else is printed,
// prints the output held back, fingerprints what it hid into the mask
// tokens the digest covers, and returns the notes that say what was hidden
// because it could not be placed. unverifiable, when set, says why the
// values behind the masks were not fingerprinted (it is among the notes).
func (r *Env) redactDiff(ctx context.Context, d *model.Diff) (notes []string, unverifiable string) {
	// Created resources' properties first: they are redacted with the rest.
	if r.asm.BindCreates(d) > 0 {
		// No count: an aggregate merges its shards' notes by their words.
		_, why := d.UnboundCreates()
		note := "Created resources are shown without their properties: " + why + ". A gated deploy refuses to create what its review did not bind (diff-unverifiable)."
		r.runner.Warning(note)
		notes = append(notes, note)
	}
	red := redact.Diff(d, redact.Input{Set: r.set, Positions: r.positions()})
	var toks redact.Tokens
	toks.AddAll(red.Hidden)
	r.registerMasks()
	r.warnDiscovery(discover.ShortWarnings(r.set))
	r.flushHeld()
	_, unplaced := redact.UnplacedNotes(red.Unplaced, r.set, r.asm != nil, "", "changed values")
	notes = append(notes, unplaced...)
	notes = append(notes, redact.NamedAfterNotes(red.NamedAfter, r.set)...)
	if unverifiable = r.fillMasks(ctx, &toks); unverifiable != "" {
		note := unverifiableNote(unverifiable)
		r.runner.Warning(note)
		notes = append(notes, note)
	}
	return notes, unverifiable
}
