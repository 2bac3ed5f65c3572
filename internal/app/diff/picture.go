package diff

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// picture draws what the changes of d touch from the cloud assembly, and
// for a deleted resource from its stack's state record in the state
// bucket (when AWS is configured; one read per stack with a deletion, no
// cdkd process), its names redacted as the change set's are (before they
// are recorded, and before they are cut).
func (r *run) picture(ctx context.Context, d model.Diff) *blast.Graph {
	g, err := r.Secrets.Assembly.Picture(d, r.deletedReferrers(ctx), r.Secrets.Set.Redact)
	if err != nil {
		r.Log.Warning(r.Secrets.Set.Redact("the picture of what the changes touch has no referrers for some stacks: " + err.Error()))
	}
	return g
}

// deletedReferrers answers, from a stack's state record (cdkd's
// dependencies), which deployed resources reference the deleted ones.
func (r *run) deletedReferrers(ctx context.Context) assembly.Deployed {
	return func(stack, region string, deleted []string) []assembly.Referrer {
		if r.AWS.Offline() != "" {
			return nil // a local run makes no AWS call unless asked
		}
		bucket := r.AWS.StateBucket(ctx)
		if bucket == "" {
			return nil
		}
		deps, err := r.AWS.Clients(ctx)
		if err != nil || deps.State == nil {
			return nil // AWS is not configured: discovery has said so
		}
		st, err := deps.State.Read(ctx, bucket, r.Config.StatePrefix, stack, cmp.Or(region, r.AWS.DefaultRegion()))
		if err != nil {
			r.Log.Warning(r.Secrets.Set.Redact("the picture of what the changes touch: the state record of " + stack +
				" could not be read, so what referenced its deleted resources is not shown: " + err.Error()))
			return nil
		}
		if st == nil {
			return nil
		}
		var out []assembly.Referrer
		for _, id := range slices.Sorted(maps.Keys(st.Resources)) {
			res := st.Resources[id]
			var on []string
			for _, dep := range res.Dependencies {
				if dep != id && slices.Contains(deleted, dep) {
					on = append(on, dep)
				}
			}
			if len(on) > 0 {
				slices.Sort(on)
				out = append(out, assembly.Referrer{ID: id, Type: res.ResourceType, On: slices.Compact(on)})
			}
		}
		return out
	}
}
