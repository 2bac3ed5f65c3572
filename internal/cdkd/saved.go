package cdkd

import "github.com/cdkd-action/cdkd-action/internal/model"

// SavedDriftExit is the exit code of the cdkd run that wrote the saved
// `cdkd drift --json` report d, which does not record it, where the report
// alone tells: 1 when something drifted (drift outranks everything), 0
// when every resource was compared. When cdkd did not compare a resource,
// only the run knew: 0.284's JSON names no cause, and a refusal (2) and a
// permanent ssm-secure token (0) look the same. Then it is
// model.ExitCodeUnknown, never a code no cdkd run produced.
func SavedDriftExit(d model.Drift) int {
	partial := false
	for _, s := range d.Stacks {
		if len(s.Drifted) > 0 {
			return 1
		}
		if len(s.NotCompared) > 0 {
			partial = true
		}
	}
	if partial {
		return model.ExitCodeUnknown
	}
	return 0
}
