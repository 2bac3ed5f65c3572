package diff

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// picture draws what the changes of d touch from the cloud assembly, and
// for a deleted resource from its stack's state record in the state
// bucket (when AWS is configured; one read per stack with a deletion, no
// cdkd process) and from the assembly before the change (base-app: what
// still imports an export it fed), its names redacted as the change set's
// are (before they are recorded, and before they are cut). notes warn of
// what the picture cannot show or what the deploy will break: a state
// record that could not be read, a former export still imported.
func (r *run) picture(ctx context.Context, d model.Diff) (g *blast.Graph, notes []string) {
	var unread []unreadRecord
	g, former, err := r.Secrets.Assembly.Picture(d, r.Secrets.BaseAssembly, r.deletedReferrers(ctx, &unread), r.Secrets.Set.Redact)
	if err != nil {
		r.Log.Warning(r.Secrets.Set.Redact("the picture of what the changes touch has no referrers for some stacks: " + err.Error()))
	}
	for _, u := range unread {
		what := "The state record of " + noteName(u.stack) + " could not be read (the log says why)"
		if u.missing {
			what = "No state record of " + noteName(u.stack) + " was found in the state bucket"
		}
		notes = append(notes, what+": what referenced its deleted resources where they were deployed is unknown, "+
			"and the picture does not show it.")
	}
	for _, f := range former {
		notes = append(notes, noteName(f.ID)+" in "+noteName(f.Stack)+" still imports the export "+noteName(f.Export)+
			", which the deleted "+strings.Join(noteNames(f.On), ", ")+" of "+noteName(f.Exporter)+
			" fed and no stack exports any more: deploying "+noteName(f.Exporter)+" will fail, or break "+noteName(f.Stack)+".")
	}
	return g, notes
}

// noteName is a name as a note's code span: a backtick in it would end the
// span, so it reads as a quote.
func noteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

func noteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = noteName(n)
	}
	return out
}

// deletedReferrers answers, from a stack's state record (cdkd's
// dependencies), which deployed resources reference the deleted ones.
// unreadRecord is a stack with a deletion whose state record was looked
// for and could not be read, or was not there.
type unreadRecord struct {
	stack   string
	missing bool
}

// A stack whose record could not be read, or was not found, is added to
// unread.
func (r *run) deletedReferrers(ctx context.Context, unread *[]unreadRecord) assembly.Deployed {
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
			*unread = append(*unread, unreadRecord{stack: stack})
			return nil
		}
		if st == nil {
			// A stack with a deletion was deployed: its record is elsewhere
			// (another bucket or prefix), or gone.
			*unread = append(*unread, unreadRecord{stack: stack, missing: true})
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
