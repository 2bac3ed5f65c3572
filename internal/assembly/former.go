package assembly

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FormerImporter is a resource of the new assembly that imports an export
// which a deleted resource fed and which no stack exports any more: its
// import will fail, or break it, when the exporter deploys.
type FormerImporter struct {
	Referrer
	// Export is the name of the export it imports; Exporter the Name of
	// the stack that exported it.
	Export, Exporter string
}

// FormerImporters reads, from base (the assembly before the change: the
// base-app input), which exports of stack st the resources ids fed, and
// returns the resources of a's stacks that still import one of them though
// no stack of a exports it any more. A deleted resource is in neither a's
// templates nor its exports, so only the assembly before it knows what it
// fed. It is nil when base is nil or has no such stack. Sorted by stack,
// logical ID and export.
func (a *Assembly) FormerImporters(base *Assembly, st Stack, ids []string) ([]FormerImporter, error) {
	if a == nil || base == nil || len(ids) == 0 {
		return nil, nil
	}
	was, ok := base.StackIn(st.Name, st.Region)
	if !ok || was.Unknown != "" || was.TemplateFile == "" {
		return nil, nil
	}
	_, tpl, err := readTemplate(was.TemplateFile)
	if err != nil {
		return nil, fmt.Errorf("read what imported the deleted resources of %s in base-app: %w", st.Name, err)
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	feeds := exportFeeds(tpl, was, want)
	exported, _ := a.Exports()
	for _, name := range exported {
		delete(feeds, name) // still exported: its importers read the new value
	}
	var out []FormerImporter
	for _, export := range slices.Sorted(maps.Keys(feeds)) {
		refs, err := a.importersOf(Stack{}, map[string][]string{export: feeds[export]})
		if err != nil {
			return nil, fmt.Errorf("read what imports the exports %s no longer has: %w", st.Name, err)
		}
		for _, r := range refs {
			out = append(out, FormerImporter{Referrer: r, Export: export, Exporter: st.Name})
		}
	}
	slices.SortFunc(out, func(x, y FormerImporter) int {
		return cmp.Or(strings.Compare(x.Stack, y.Stack), strings.Compare(x.ID, y.ID), strings.Compare(x.Export, y.Export))
	})
	return out, nil
}
