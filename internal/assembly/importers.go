package assembly

import (
	"slices"
	"strings"
)

// Import is one stack's Fn::ImportValue of an export: the one cross-stack
// read that makes a stack change when another stack's export does, with
// no change of its own in a diff (cdkd cannot know the new value before
// the exporter deploys). The picture of what a change touches draws such
// importers, and the gated deploy deploys them with their exporter: both
// read them here.
type Import struct {
	// Stack is the importing stack.
	Stack Stack
	// Export is the export name it imports; "" when one of its imports
	// cannot be spelled before deploying (it could be any export, so it
	// counts as an importer of every one).
	Export string
}

// Importers returns the stacks of the assembly that import one of
// exports, one Import per stack and export, sorted by stack name, region
// and export. A stack whose import cannot be spelled is returned once,
// with Export "", when exports is not empty: it could read any of them.
func (a *Assembly) Importers(exports []string) []Import {
	if a == nil || len(exports) == 0 {
		return nil
	}
	var out []Import
	for _, s := range a.Stacks {
		for _, e := range s.Imports {
			if slices.Contains(exports, e) {
				out = append(out, Import{Stack: s, Export: e})
			}
		}
		if s.ImportsUnknown {
			out = append(out, Import{Stack: s})
		}
	}
	slices.SortFunc(out, func(x, y Import) int {
		if c := strings.Compare(x.Stack.Name, y.Stack.Name); c != 0 {
			return c
		}
		if c := strings.Compare(x.Stack.Region, y.Stack.Region); c != 0 {
			return c
		}
		return strings.Compare(x.Export, y.Export)
	})
	return out
}

// Exports returns the export names the assembly's stacks declare and can
// spell before deploying, sorted and without repeats: an import of a name
// not among them (and not of an export whose name cannot be spelled)
// reads an export that the new templates no longer declare.
func (a *Assembly) Exports() (names []string, unspelled bool) {
	if a == nil {
		return nil, false
	}
	for _, s := range a.Stacks {
		for _, o := range s.Outputs {
			switch {
			case !o.Exported:
			case o.Export == "":
				unspelled = true
			default:
				names = append(names, o.Export)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names), unspelled
}
