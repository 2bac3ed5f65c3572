package cdkd

import "github.com/cdkd-action/cdkd-action/internal/model"

// SavedDriftExit is the exit code cdkd would have given the saved
// `cdkd drift --json` report d, which does not record it: 1 when something
// drifted, 2 when nothing did but a comparison was refused or its read
// failed, else 0 (see the contract's detection-mode table).
func SavedDriftExit(d model.Drift) int {
	partial := false
	for _, s := range d.Stacks {
		if len(s.Drifted) > 0 {
			return 1
		}
		for _, n := range s.NotCompared {
			if n.Cause == model.CauseRefused || n.Cause == model.CauseReadFailed {
				partial = true
			}
		}
	}
	if partial {
		return 2
	}
	return 0
}
