package assembly

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Referrer is a resource that references resources of another one's
// stack: in the same stack with Ref, Fn::GetAtt, Fn::Sub (${X} and
// ${X.Attr}) or DependsOn, or in another stack with Fn::ImportValue of an
// export whose value they feed.
type Referrer struct {
	// Stack is the Name of the stack holding it when that is another
	// stack; "" for the same stack.
	Stack    string
	ID, Type string
	// On are the resources of ids (see Referrers) it references, sorted.
	On []string
}

// Referrers reads what references the resources ids of stack st in the
// assembly's templates: the picture of what a change touches (package
// blast) is drawn from it. It reads st's template, and those of the stacks
// whose Fn::ImportValue names an export one of ids feeds (Stack.Imports
// says which without reading the others). The result is sorted by stack
// and logical ID. A resource that is not in the template (a deleted one)
// has no referrers there: the new template references it no more.
func (a *Assembly) Referrers(st Stack, ids []string) ([]Referrer, error) {
	if st.Unknown != "" || st.TemplateFile == "" || len(ids) == 0 {
		return nil, nil
	}
	_, tpl, err := readTemplate(st.TemplateFile)
	if err != nil {
		return nil, fmt.Errorf("read what references the changes of %s: %w", st.Name, err)
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []Referrer
	for _, id := range tpl.resourceIDs() {
		if on := tpl.references(id, want); len(on) > 0 {
			out = append(out, Referrer{ID: id, Type: tpl.types()[id], On: on})
		}
	}
	refs, err := a.importersOf(st, exportFeeds(tpl, st, want))
	if err != nil {
		return nil, fmt.Errorf("read what references the changes of %s: %w", st.Name, err)
	}
	return append(out, refs...), nil
}

// exportFeeds are the exports of st (template tpl) whose value reads one
// of the resources want, by export name, each with those resources sorted.
func exportFeeds(tpl *template, st Stack, want map[string]bool) map[string][]string {
	feeds := map[string][]string{}
	tr := newTracer(tpl, st, nil)
	for _, name := range slices.Sorted(maps.Keys(tpl.Outputs)) {
		o, _ := tpl.Outputs[name].(map[string]any)
		exp, _ := o["Export"].(map[string]any)
		if exp == nil {
			continue
		}
		on := map[string]bool{}
		collectRefs(o["Value"], tpl, want, on)
		export := tr.spell(exp["Name"])
		if len(on) > 0 && !strings.Contains(export, "${") {
			feeds[export] = slices.Sorted(maps.Keys(on))
		}
	}
	return feeds
}

// importersOf are the resources of a's stacks other than st that import
// one of the exports feeds names (importers).
func (a *Assembly) importersOf(st Stack, feeds map[string][]string) ([]Referrer, error) {
	if len(feeds) == 0 {
		return nil, nil
	}
	var out []Referrer
	for _, other := range a.Stacks {
		if other.Name == st.Name && other.Region == st.Region || other.Unknown != "" || other.TemplateFile == "" {
			continue
		}
		if !slices.ContainsFunc(other.Imports, func(e string) bool { return feeds[e] != nil }) {
			continue
		}
		refs, err := importers(other, feeds)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// importers are the resources of st that import one of the exports feeds
// names, each with the resources that feed what it imports.
func importers(st Stack, feeds map[string][]string) ([]Referrer, error) {
	_, tpl, err := readTemplate(st.TemplateFile)
	if err != nil {
		return nil, err
	}
	tr := newTracer(tpl, st, nil)
	types := tpl.types()
	var out []Referrer
	for _, id := range tpl.resourceIDs() {
		r, _ := tpl.Resources[id].(map[string]any)
		on := map[string]bool{}
		walkIntrinsics(r["Properties"], func(fn string, arg any) {
			if fn == "Fn::ImportValue" {
				for _, f := range feeds[tr.spell(arg)] {
					on[f] = true
				}
			}
		})
		if len(on) > 0 {
			out = append(out, Referrer{Stack: st.Name, ID: id, Type: types[id], On: slices.Sorted(maps.Keys(on))})
		}
	}
	return out, nil
}

// references are the resources of want that resource id references, sorted.
func (t *template) references(id string, want map[string]bool) []string {
	r, ok := t.Resources[id].(map[string]any)
	if !ok {
		return nil
	}
	on := map[string]bool{}
	collectRefs(r["Properties"], t, want, on)
	switch d := r["DependsOn"].(type) {
	case string:
		add(on, want, d)
	case []any:
		for _, e := range d {
			if s, ok := e.(string); ok {
				add(on, want, s)
			}
		}
	}
	delete(on, id)
	return slices.Sorted(maps.Keys(on))
}

// collectRefs adds to on the resources of want (and of t) that v references
// with Ref, Fn::GetAtt or Fn::Sub.
func collectRefs(v any, t *template, want, on map[string]bool) {
	walkIntrinsics(v, func(fn string, arg any) {
		switch fn {
		case "Ref":
			if s, ok := arg.(string); ok {
				add(on, want, s)
			}
		case "Fn::GetAtt":
			switch x := arg.(type) {
			case string:
				name, _, _ := strings.Cut(x, ".")
				add(on, want, name)
			case []any:
				if len(x) > 0 {
					if s, ok := x[0].(string); ok {
						add(on, want, s)
					}
				}
			}
		case "Fn::Sub":
			tmpl, vars, ok := subArgs(arg)
			if !ok {
				return
			}
			for _, name := range placeholders(tmpl) {
				if _, local := vars[name]; local {
					continue
				}
				res, _, _ := strings.Cut(name, ".")
				add(on, want, res)
			}
		}
	})
}

func add(on, want map[string]bool, id string) {
	if want[id] {
		on[id] = true
	}
}

// walkIntrinsics calls fn for every intrinsic function in v, outermost
// first, and walks into its arguments too.
func walkIntrinsics(v any, fn func(name string, arg any)) {
	switch x := v.(type) {
	case map[string]any:
		if name, arg, ok := intrinsic(x); ok {
			fn(name, arg)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			walkIntrinsics(x[k], fn)
		}
	case []any:
		for _, e := range x {
			walkIntrinsics(e, fn)
		}
	}
}
