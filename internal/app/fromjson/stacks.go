package fromjson

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The stacks input on a saved report (from-json): cdkd would have acted
// on the stacks it names only, so only they are rendered, chosen by
// cdkd's own rule (cdkd.MatchSaved); patterns that match nothing, or that
// need what a saved report does not hold, are bad input.

// selectSaved keeps the saved report's stacks the stacks input selects
// (all of them when it is empty), in the report's order.
func selectSaved[S any](path string, patterns []string, stacks []S, name func(S) string) ([]S, error) {
	if len(patterns) == 0 {
		return stacks, nil
	}
	names := make([]string, len(stacks))
	for i, s := range stacks {
		names[i] = name(s)
	}
	selected, err := cdkd.MatchSaved(names, patterns)
	if err != nil {
		return nil, &config.InputError{Input: "stacks", Msg: fmt.Sprintf("with from-json %s: %v", path, err)}
	}
	keep := make(map[string]bool, len(selected))
	for _, s := range selected {
		keep[s] = true
	}
	kept := make([]S, 0, len(selected))
	for _, s := range stacks {
		if keep[name(s)] {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// SelectDiff keeps the stacks of d, the saved diff in path, that the
// stacks input (patterns) selects.
func SelectDiff(path string, patterns []string, d *model.Diff) (err error) {
	d.Stacks, err = selectSaved(path, patterns, d.Stacks, func(s model.StackDiff) string { return s.Stack })
	return err
}

// SelectDrift keeps the stacks of d, the saved drift in path, that the
// stacks input (patterns) selects.
func SelectDrift(path string, patterns []string, d *model.Drift) (err error) {
	d.Stacks, err = selectSaved(path, patterns, d.Stacks, func(s model.StackDrift) string { return s.Stack })
	return err
}

// reportTakesNoStacks refuses the stacks input on a report JSON
// cdkd-action wrote: it is rendered whole, since its digest, verdict and
// totals are the whole run's.
func reportTakesNoStacks(path string, patterns []string) error {
	if len(patterns) == 0 {
		return nil
	}
	return &config.InputError{Input: "stacks", Msg: fmt.Sprintf("from-json %s is a report JSON cdkd-action wrote, rendered whole (its digest, verdict and totals are the whole run's): leave stacks empty, or render cdkd's own saved JSON", path)}
}
