package assembly

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
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

// NewValueImport is an import that takes a new value when the change set
// deploys: the importing stack's diff is empty (cdkd resolves
// Fn::ImportValue from the exporter's state, which holds the old value
// until the exporter deploys), yet it changes once its exporter has. The
// gated deploy deploys the importer with its exporter and the review names
// it; docs/deploy.md says what cdkd does otherwise.
type NewValueImport struct {
	// Importer is the importing stack; Exporter the Name of the stack
	// whose export changes.
	Importer Stack
	Exporter string
	// Export is the export name ("" when the importer's import cannot be
	// spelled: it could read this exporter's changed export).
	Export string
	// Because says why the export's value changes, for the review
	// ("it reads Queue, which is replaced").
	Because string
}

// NewValueImports finds, for the change set d, every stack of the
// assembly that imports an export whose value the change set changes.
// An export's value changes when its output's value reads a resource the
// change set replaces, creates or deletes (a new physical ID), reads an
// attribute of one it updates (Fn::GetAtt, or ${X.Attr} in Fn::Sub: an
// update may give it a new value), or when cdkd's diff shows its output
// changed. A Ref of a resource updated in place keeps its value. An export
// whose name cannot be spelled before deploying counts for every importer
// whose import cannot be spelled either. The result is sorted by importer,
// export and exporter; an error names the templates that could not be
// read (their exports are then unknown: the caller fails closed).
func (a *Assembly) NewValueImports(d model.Diff) ([]NewValueImport, error) {
	if a == nil {
		return nil, nil
	}
	var out []NewValueImport
	var errs []error
	d.Walk(func(_ string, s model.StackDiff) {
		if len(s.Changes) == 0 && len(s.OutputChanges) == 0 {
			return
		}
		st, ok := a.StackIn(s.Stack, s.Region)
		if !ok || st.TemplateFile == "" || st.Unknown != "" {
			return
		}
		changed, err := changedExports(st, s)
		if err != nil {
			errs = append(errs, fmt.Errorf("find the imports of what %s changes: %w", s.Stack, err))
			return
		}
		for _, e := range changed {
			for _, imp := range a.Importers([]string{e.name}) {
				if imp.Stack.Name == st.Name && imp.Stack.Region == st.Region {
					continue
				}
				out = append(out, NewValueImport{Importer: imp.Stack, Exporter: st.Name, Export: imp.Export, Because: e.because})
			}
		}
	})
	slices.SortFunc(out, func(x, y NewValueImport) int {
		return cmp.Or(strings.Compare(x.Importer.Name, y.Importer.Name), strings.Compare(x.Importer.Region, y.Importer.Region),
			strings.Compare(x.Export, y.Export), strings.Compare(x.Exporter, y.Exporter))
	})
	return slices.CompactFunc(out, func(x, y NewValueImport) bool {
		return x.Importer.Name == y.Importer.Name && x.Importer.Region == y.Importer.Region && x.Export == y.Export && x.Exporter == y.Exporter
	}), errors.Join(errs...)
}

// changedExport is an export of a stack whose value the change set changes.
type changedExport struct{ name, because string }

// changedExports are the exports of st whose value s changes (see
// NewValueImports), sorted by name.
func changedExports(st Stack, s model.StackDiff) ([]changedExport, error) {
	_, tpl, err := readTemplate(st.TemplateFile)
	if err != nil {
		return nil, err
	}
	actions := map[string]model.Action{}
	for _, ch := range s.Changes {
		actions[ch.LogicalID] = ch.Action()
	}
	outputChanged := map[string]bool{}
	for _, oc := range s.OutputChanges {
		outputChanged[oc.Name] = true
	}
	tr := newTracer(tpl, st, nil)
	var out []changedExport
	for _, name := range slices.Sorted(maps.Keys(tpl.Outputs)) {
		o, _ := tpl.Outputs[name].(map[string]any)
		exp, _ := o["Export"].(map[string]any)
		if exp == nil {
			continue
		}
		export := tr.spell(exp["Name"])
		if strings.Contains(export, "${") {
			export = "" // cannot be spelled: matches an import that cannot be either
		}
		because := ""
		switch {
		case outputChanged[name] || export != "" && outputChanged[export]:
			because = "cdkd's diff shows output " + name + " changed"
		default:
			because = newValueCause(o["Value"], actions)
		}
		if because != "" {
			out = append(out, changedExport{name: export, because: because})
		}
	}
	return out, nil
}

// newValueCause says why value v, an output's, takes a new value with the
// changes actions ("" when it keeps its value).
func newValueCause(v any, actions map[string]model.Action) string {
	cause := ""
	note := func(id string, attr bool) {
		a, ok := actions[id]
		if !ok || cause != "" {
			return
		}
		switch {
		case a == model.ActionReplace:
			cause = "it reads " + id + ", which is replaced"
		case a == model.ActionCreate:
			cause = "it reads " + id + ", which is created"
		case a == model.ActionDelete:
			cause = "it reads " + id + ", which is deleted"
		case attr:
			cause = "it reads an attribute of " + id + ", which is updated"
		}
	}
	walkIntrinsics(v, func(fn string, arg any) {
		switch fn {
		case "Ref":
			if s, ok := arg.(string); ok {
				note(s, false)
			}
		case "Fn::GetAtt":
			switch x := arg.(type) {
			case string:
				id, _, _ := strings.Cut(x, ".")
				note(id, true)
			case []any:
				if len(x) > 0 {
					if s, ok := x[0].(string); ok {
						note(s, true)
					}
				}
			}
		case "Fn::Sub":
			tmpl, vars, ok := subArgs(arg)
			if !ok {
				return
			}
			for _, p := range placeholders(tmpl) {
				if _, local := vars[p]; !local {
					id, attr, _ := strings.Cut(p, ".")
					note(id, attr != "")
				}
			}
		}
	})
	return cause
}
