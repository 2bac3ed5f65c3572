package changeset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// Selection is the stacks a gated deploy of a change set passes cdkd
// (with --exclusively), and why each is there. The diff names the same
// stacks in its review, so that what deploys is what reviewers were told
// deploys: both compute it here.
type Selection struct {
	// Stacks are the cdkd stack names to deploy, sorted: the Changed ones
	// and the stacks deployed with them (With). Empty: nothing to deploy,
	// and no cdkd deploy runs.
	Stacks []string
	// Changed are the stacks the change set holds changes in.
	Changed []string
	// With are the imports that take a new value, of stacks whose own
	// diff is empty: such a stack is deployed with its exporter, since
	// cdkd resolves Fn::ImportValue only when the importing stack deploys.
	With []Imported
	// Outside are such imports of stacks the change set does not hold
	// (stacks names fewer stacks): never deployed, since nobody saw their
	// diff.
	Outside []Imported
	// Unnamed says why no explicit list can be given ("" when it can): a
	// changed stack's name is hidden (it holds a secret), so the deploy
	// passes cdkd the inputs' selection, as the diff did.
	Unnamed string
}

// Imported is one import that takes a new value when the change set
// deploys.
type Imported struct {
	// Stack is the importing stack (the top-level stack it deploys with);
	// Exporter the stack whose export changes.
	Stack, Exporter string
	// Export is the export's name ("" when the import cannot be spelled
	// before deploying).
	Export string
	// Because says why its value changes.
	Because string
}

// Changes reports whether a top-level stack of a change set is one a
// deploy must apply: it, or a stack nested in it, holds a change, or a
// secret value there changed (or cannot be told unchanged) where cdkd's
// own diff may not show it.
func Changes(s model.StackDiff) bool {
	if s.Counts().Any() {
		return true
	}
	for _, v := range s.SecretValues {
		if v.Status != model.FingerprintUnchanged {
			return true
		}
	}
	for _, ch := range s.Children {
		if Changes(ch) {
			return true
		}
	}
	return false
}

// Select is the Selection of change set d: its changed stacks, and the
// stacks of d that import an export whose value the change set changes
// (assembly.NewValueImports), to a fixed point: a stack deployed for its
// imports may pass a new value on through its own exports, so every export
// of such a stack counts as changing. When the exports' values cannot be
// told (a template that cannot be read), every export of a changed stack
// counts: deploying an importer whose value stays is only one more run in
// its history, leaving one behind whose value moves is a dangling
// reference. Without an assembly only the changed stacks are selected.
func Select(asm *assembly.Assembly, d model.Diff) Selection {
	var sel Selection
	inDiff := map[string]bool{}
	selected := map[string]bool{}
	for _, s := range d.Stacks {
		inDiff[s.Stack] = true
		if !Changes(s) {
			continue
		}
		if strings.Contains(s.Stack, secrets.Replacement) {
			sel.Unnamed = fmt.Sprintf("the name of a changed stack (%s) holds a secret and cannot be passed to cdkd", s.Stack)
		}
		if !selected[s.Stack] {
			selected[s.Stack] = true
			sel.Changed = append(sel.Changed, s.Stack)
		}
	}
	slices.Sort(sel.Changed)
	seen := map[string]bool{}
	var frontier []string
	add := func(imp Imported) {
		key := imp.Stack + "\x00" + imp.Export + "\x00" + imp.Exporter
		switch {
		case seen[key] || slices.Contains(sel.Changed, imp.Stack):
			// Named already, or changed itself: deployed, its diff reviewed.
		case !inDiff[imp.Stack]:
			seen[key] = true
			sel.Outside = append(sel.Outside, imp)
		default:
			seen[key] = true
			sel.With = append(sel.With, imp)
			if !selected[imp.Stack] {
				selected[imp.Stack] = true
				frontier = append(frontier, imp.Stack)
			}
		}
	}
	imps, err := asm.NewValueImports(d)
	if err != nil {
		for _, name := range sel.Changed {
			importersOf(asm, name, "what it exports cannot be told ("+err.Error()+")", add)
		}
	}
	for _, imp := range imps {
		add(Imported{Stack: topLevel(asm, imp.Importer), Exporter: imp.Exporter, Export: imp.Export, Because: imp.Because})
	}
	for len(frontier) > 0 {
		next := frontier
		frontier = nil
		for _, name := range next {
			importersOf(asm, name, name+" is deployed for an import that takes a new value", add)
		}
	}
	for name := range selected {
		sel.Stacks = append(sel.Stacks, name)
	}
	slices.Sort(sel.Stacks)
	return sel
}

// importersOf passes add every import of an export of stack name (and of
// the stacks nested in it), because of why.
func importersOf(asm *assembly.Assembly, name, why string, add func(Imported)) {
	declared, _ := asm.Exports()
	var exports []string
	for _, e := range exportsOf(asm, name) {
		if e.Export == "" {
			// Known only once deployed: any import of a name no spelled
			// export declares may read it.
			exports = append(exports, undeclaredImports(asm, declared)...)
			continue
		}
		exports = append(exports, e.Export)
	}
	slices.Sort(exports)
	for _, imp := range asm.Importers(slices.Compact(exports)) {
		if top := topLevel(asm, imp.Stack); top != name {
			add(Imported{Stack: top, Exporter: name, Export: imp.Export, Because: why})
		}
	}
}

// exportedOutput is an output of a deployed stack that is exported.
type exportedOutput struct{ Export string }

// exportsOf are the exported outputs of stack name and of the stacks
// nested in it (a nested stack deploys with its parent).
func exportsOf(asm *assembly.Assembly, name string) []exportedOutput {
	if asm == nil {
		return nil
	}
	var out []exportedOutput
	for _, s := range asm.Stacks {
		if topLevel(asm, s) != name {
			continue
		}
		for _, o := range s.Outputs {
			if o.Exported {
				out = append(out, exportedOutput{Export: o.Export})
			}
		}
	}
	return out
}

// undeclaredImports are the export names the assembly's stacks import and
// no stack declares by a name known before deploying.
func undeclaredImports(asm *assembly.Assembly, declared []string) []string {
	var out []string
	for _, s := range asm.Stacks {
		for _, i := range s.Imports {
			if !slices.Contains(declared, i) {
				out = append(out, i)
			}
		}
	}
	return out
}

// topLevel is the top-level stack a stack deploys with: itself, or the
// parent of a nested stack (its parent's parent, ...).
func topLevel(asm *assembly.Assembly, s assembly.Stack) string {
	for s.Parent != "" {
		p, ok := asm.Stack(s.Parent)
		if !ok {
			return s.Parent
		}
		s = p
	}
	return s.Name
}

// Names lists the stacks deployed with the change set and why, one
// sentence for the review and the deploy report ("" when there are none).
func (sel Selection) Names() string {
	if len(sel.With) == 0 {
		return ""
	}
	return "Deployed with this change set, its own diff empty: " + describe(sel.With) +
		". cdkd reads an Fn::ImportValue only when the importing stack deploys: deployed alone, the exporter would leave it holding the old value, and its change would show in no review."
}

// NotDeployed warns of the importers a deploy leaves alone because the
// change set does not hold them ("" when there are none): they keep the
// export's old value until they are deployed themselves.
func (sel Selection) NotDeployed() string {
	if len(sel.Outside) == 0 {
		return ""
	}
	return "Not deployed, although an import takes a new value: " + describe(sel.Outside) +
		". It is not in this change set (stacks names fewer stacks), so nobody reviewed its diff; it keeps the old value until it is deployed itself."
}

// describe names each importing stack with its imports that take a new
// value: "B (imports `QueueUrl` from A: it reads Queue, which is
// replaced)".
func describe(imps []Imported) string {
	by := map[string][]string{}
	var stacks []string
	for _, w := range imps {
		if _, ok := by[w.Stack]; !ok {
			stacks = append(stacks, w.Stack)
		}
		what := "an export whose name is known only once deployed"
		if w.Export != "" {
			what = "`" + w.Export + "`"
		}
		what += " from " + w.Exporter
		if w.Because != "" {
			what += ": " + w.Because
		}
		by[w.Stack] = append(by[w.Stack], what)
	}
	slices.Sort(stacks)
	var parts []string
	for _, s := range stacks {
		parts = append(parts, fmt.Sprintf("%s (imports %s)", s, strings.Join(by[s], "; ")))
	}
	return strings.Join(parts, ", ")
}
