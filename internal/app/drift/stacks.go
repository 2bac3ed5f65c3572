package drift

import (
	"context"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Each pattern of the stacks input must match a stack of the state: cdkd
// drift drops one that matches nothing when another matches, so a typo
// would leave a stack unchecked without a word. A stack in the state but
// gone from the code counts: drift reads the state, not the app.

// stacksInState checks the patterns against the state bucket's records
// before cdkd runs. checked is false when the bucket could not be listed
// (a local run without resolve-secrets reads no AWS; a role without
// s3:ListBucket): cdkd's report is checked instead (stacksInReport).
func (r *run) stacksInState(ctx context.Context, aws *driftAWS) (checked bool, err error) {
	if len(r.Config.Stacks) == 0 || r.Config.FromJSON != "" {
		return true, nil
	}
	l, ok := aws.lister.(stateLister)
	if !ok || r.AWS.StateBucket(ctx) == "" {
		return false, nil
	}
	records, err := l.List(ctx, r.AWS.StateBucket(ctx), r.Config.StatePrefix)
	if err != nil {
		return false, nil // said where the listing matters (storedStacks)
	}
	var names []string
	for _, rec := range records {
		if r.Config.StackRegion != "" && rec.Region != r.Config.StackRegion {
			continue
		}
		top, _, _ := strings.Cut(rec.Stack, "~") // a nested stack's record comes with its parent
		names = append(names, top)
	}
	return true, unmatchedIn(r.Config.Stacks, names, "the state bucket "+r.AWS.StateBucket(ctx))
}

// stacksInReport checks the patterns against the stacks cdkd's report
// names: cdkd reports every stack with state that a pattern selects.
func (r *run) stacksInReport(d model.Drift) error {
	if len(r.Config.Stacks) == 0 || r.Config.FromJSON != "" {
		return nil
	}
	names := make([]string, 0, len(d.Stacks))
	for _, s := range d.Stacks {
		names = append(names, s.Stack)
	}
	return unmatchedIn(r.Config.Stacks, names, "cdkd drift's report")
}

// unmatchedIn refuses the patterns that match none of the names.
func unmatchedIn(patterns, names []string, where string) error {
	slices.Sort(names)
	names = slices.Compact(names)
	return config.UnmatchedStacks(assembly.UnmatchedNames(patterns, names), where, names)
}
