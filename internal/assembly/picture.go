package assembly

import (
	"errors"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Picture is the picture of what the changes of d touch (package blast):
// per stack with a replacement, a deletion or a broadening security row,
// those resources and what references them in the assembly's templates
// (Referrers). It is nil when d has none of these changes. a may be nil
// (no assembly): the picture then shows the changed resources alone. A
// deleted resource is no longer in the templates: deployed (may be nil)
// says what referenced it where it was deployed (cdkd's state), in its
// stack. An error names the stacks whose templates could not be read; the
// picture is still drawn, without their referrers. redact (nil: none) is
// applied to every name before it is recorded (blast.Build): the
// dependents are found by the names as they are. base (may be nil: no
// base-app) is the assembly before the change: the resources that still
// import an export a deleted resource fed, which no stack exports any
// more, are read from it (FormerImporters), drawn, and returned so that
// the review warns of them.
func (a *Assembly) Picture(d model.Diff, base *Assembly, deployed Deployed, redact func(string) string) (*blast.Graph, []FormerImporter, error) {
	var former []FormerImporter
	// What the change set does to each resource, by stack Name, so that a
	// dependent in another stack shows its own change.
	changes := map[string]map[string]blast.Kind{}
	d.Walk(func(_ string, s model.StackDiff) {
		m := map[string]blast.Kind{}
		for _, ch := range s.Changes {
			m[ch.LogicalID] = kindOf(ch.Action())
		}
		changes[s.Stack] = m
	})
	var in []blast.Input
	var errs []error
	d.Walk(func(path string, s model.StackDiff) {
		kinds := changes[s.Stack]
		var focus []blast.Changed
		var ids []string
		for _, ch := range s.Changes {
			if k := kinds[ch.LogicalID]; k.Focus() {
				focus = append(focus, blast.Changed{ID: ch.LogicalID, Type: ch.ResourceType, Kind: k})
				ids = append(ids, ch.LogicalID)
			}
		}
		broadened := map[string]bool{}
		for _, sc := range s.Security {
			if sc.Broadening() && !kinds[sc.LogicalID].Focus() && !broadened[sc.LogicalID] {
				broadened[sc.LogicalID] = true
				focus = append(focus, blast.Changed{ID: sc.LogicalID, Type: sc.ResourceType, Kind: blast.Broaden})
				ids = append(ids, sc.LogicalID)
			}
		}
		if len(focus) == 0 {
			return
		}
		st := blast.Input{Stack: path, Changed: focus}
		if len(in) >= blast.MaxReduced {
			// Neither in the full picture nor in the reduced one, only
			// counted: nothing more is read for it.
			in = append(in, st)
			return
		}
		var deleted []string
		for _, c := range focus {
			if c.Kind == blast.Delete {
				deleted = append(deleted, c.ID)
			}
		}
		if len(deleted) > 0 && deployed != nil {
			for _, r := range deployed(s.Stack, s.Region, deleted) {
				kind, changed := kinds[r.ID]
				if !changed {
					kind = blast.Unchanged
				}
				st.Dependents = append(st.Dependents, blast.Dependent{ID: r.ID, Type: r.Type, Kind: kind, On: r.On})
			}
		}
		if len(deleted) > 0 && a != nil && base != nil {
			refs, err := a.FormerImporters(base, Stack{Name: s.Stack, Region: s.Region}, deleted)
			if err != nil {
				errs = append(errs, err)
			}
			for _, r := range refs {
				kind, changed := changes[r.Stack][r.ID]
				if !changed {
					kind = blast.Unchanged
				}
				st.Dependents = append(st.Dependents, blast.Dependent{Stack: r.Stack, ID: r.ID, Type: r.Type, Kind: kind, On: r.On})
			}
			former = append(former, refs...)
		}
		if a != nil {
			if stack, ok := a.StackIn(s.Stack, s.Region); ok {
				refs, err := a.Referrers(stack, ids)
				if err != nil {
					errs = append(errs, err)
				}
				for _, r := range refs {
					in := s.Stack
					if r.Stack != "" {
						in = r.Stack
					}
					kind, changed := changes[in][r.ID]
					if !changed {
						kind = blast.Unchanged
					}
					st.Dependents = append(st.Dependents, blast.Dependent{Stack: r.Stack, ID: r.ID, Type: r.Type, Kind: kind, On: r.On})
				}
			}
		}
		in = append(in, st)
	})
	return blast.Build(in, redact), former, errors.Join(errs...)
}

// Deployed returns the resources of a stack, as deployed, that reference
// the resources deleted (their cdkd state's dependencies), each with the
// deleted ones it references.
type Deployed func(stack, region string, deleted []string) []Referrer

// kindOf is the picture's kind of a change.
func kindOf(a model.Action) blast.Kind {
	switch a {
	case model.ActionReplace:
		return blast.Replace
	case model.ActionDelete:
		return blast.Delete
	case model.ActionCreate:
		return blast.Create
	default:
		// An update, or a change type cdkd-action does not know: the
		// destructive callout names the latter.
		return blast.Update
	}
}
