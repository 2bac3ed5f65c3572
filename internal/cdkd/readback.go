package cdkd

import (
	"context"
)

// ReadBack reads what cdkd recorded of a stack (its state, its deploy runs
// and their events): from the state bucket directly when the cdkd release
// that wrote it has a verified layout (Bucket), else, and whenever the
// direct read cannot answer exactly as cdkd would, through cdkd itself.
// Either way the answer is what cdkd's own command prints.
type ReadBack struct {
	// Bucket is the direct read; nil reads through cdkd only.
	Bucket *Bucket
	// Run runs one cdkd call (bounded, logged, side by side with others).
	Run func(ctx context.Context, args []string) (Result, error)
	// Common gives the state flags of those calls.
	Common Common
	// Fallback, when set, is told why a direct read was left to cdkd.
	Fallback func(what string, err error)
}

// direct reports whether the direct read may answer for a stack in region.
func (rb ReadBack) direct(region string) bool { return rb.Bucket != nil && region != "" }

func (rb ReadBack) fellBack(what string, err error) {
	if rb.Fallback != nil {
		rb.Fallback(what, err)
	}
}

// State is the state record `cdkd state show <stack> --json` prints.
// region is where the stack was deployed ("" unknown: cdkd finds it).
func (rb ReadBack) State(ctx context.Context, stack, region string) (StackState, error) {
	if rb.direct(region) {
		st, err := rb.Bucket.State(ctx, stack, region)
		if err == nil {
			return st, nil
		}
		rb.fellBack("the state of "+stack, err)
	}
	args, err := StateShowArgs(stack, rb.Common)
	if err != nil {
		return StackState{}, err
	}
	res, err := rb.Run(ctx, args)
	if err != nil {
		return StackState{}, err
	}
	show, err := ClassifyStateShow(res)
	return show.State, err
}

// Runs is `cdkd events <stack> --json`: the stack's recorded runs.
func (rb ReadBack) Runs(ctx context.Context, stack, region string) (RunList, error) {
	if rb.direct(region) {
		list, err := rb.Bucket.Runs(ctx, stack, region)
		if err == nil {
			return list, nil
		}
		rb.fellBack("the deploy runs of "+stack, err)
	}
	args, err := EventsArgs(stack, "", "", rb.Common)
	if err != nil {
		return RunList{}, err
	}
	res, err := rb.Run(ctx, args)
	if err != nil {
		return RunList{}, err
	}
	return ClassifyRuns(res)
}

// RunEvents is `cdkd events <stack> --run <id> --json`: one run's events.
func (rb ReadBack) RunEvents(ctx context.Context, stack, region, runID string) ([]Event, error) {
	if rb.direct(region) {
		events, err := rb.Bucket.RunEvents(ctx, stack, region, runID)
		if err == nil {
			return events, nil
		}
		rb.fellBack("the events of run "+runID+" of "+stack, err)
	}
	args, err := EventsArgs(stack, "", runID, rb.Common)
	if err != nil {
		return nil, err
	}
	res, err := rb.Run(ctx, args)
	if err != nil {
		return nil, err
	}
	return ClassifyEvents(res)
}
