package app

import "slices"

// missingLabels keeps an existing tracking issue's labels in sync with
// issue-labels: it returns the labels plus those of want it lacks
// (labels someone added by hand stay), or nil when none is missing.
func missingLabels(have, want []string) *[]string {
	out := slices.Clone(have)
	for _, l := range want {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if len(out) == len(have) {
		return nil
	}
	return &out
}
