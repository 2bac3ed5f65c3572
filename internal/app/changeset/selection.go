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
	// With are the stacks deployed although their own diff is empty: each
	// imports an export of a deployed stack, and reads its value only when
	// it is deployed itself (cdkd resolves Fn::ImportValue at deploy time).
	With []assembly.Import
	// Exporters names, per export in With, the deployed stack that exports
	// it (absent when the export's name is known only after deploying).
	Exporters map[string]string
	// Outside are importers of a deployed stack's exports that the change
	// set does not hold (stacks names fewer stacks): never deployed, since
	// nobody saw their diff.
	Outside []assembly.Import
	// Unnamed says why no explicit list can be given ("" when it can): a
	// changed stack's name is hidden (it holds a secret), so the deploy
	// passes cdkd the inputs' selection, as the diff did.
	Unnamed string
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
// stacks of d that import an export of a selected stack (so read a value
// that may change when it deploys), found with the assembly's importer
// detection (assembly.Importers), to a fixed point: an importer deployed
// may export a value in turn. Without an assembly only the changed stacks
// are selected, and nothing can say who imports what.
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
	sel.Exporters = map[string]string{}
	declared, _ := asm.Exports()
	seenWith, seenOutside := map[string]bool{}, map[string]bool{}
	for frontier := sel.Changed; len(frontier) > 0; {
		var exports []string
		for _, name := range frontier {
			for _, e := range exportsOf(asm, name) {
				if e.Export == "" {
					// An export whose name is known only once deployed: any
					// import of a name no spelled export declares may read it.
					exports = append(exports, undeclaredImports(asm, declared)...)
					continue
				}
				exports = append(exports, e.Export)
				if _, ok := sel.Exporters[e.Export]; !ok {
					sel.Exporters[e.Export] = name
				}
			}
		}
		slices.Sort(exports)
		frontier = nil
		for _, imp := range asm.Importers(slices.Compact(exports)) {
			top := topLevel(asm, imp.Stack)
			key := top + "\x00" + imp.Export
			switch {
			case !inDiff[top]:
				if !seenOutside[key] {
					seenOutside[key] = true
					sel.Outside = append(sel.Outside, imp)
				}
			case slices.Contains(sel.Changed, top):
				// Changed itself: deployed, and its diff is reviewed.
			case !seenWith[key]:
				seenWith[key] = true
				sel.With = append(sel.With, imp)
				if !selected[top] {
					selected[top] = true
					frontier = append(frontier, top)
				}
			}
		}
	}
	for name := range selected {
		sel.Stacks = append(sel.Stacks, name)
	}
	slices.Sort(sel.Stacks)
	return sel
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
// sentence for the review and the deploy report ("" when there are none):
// "Deployed with the change set, its own diff empty: B (imports `QueueUrl`
// from A)".
func (sel Selection) Names() string {
	if len(sel.With) == 0 {
		return ""
	}
	by := map[string][]string{}
	var stacks []string
	for _, w := range sel.With {
		if _, ok := by[w.Stack.Name]; !ok {
			stacks = append(stacks, w.Stack.Name)
		}
		what := "an export whose name is known only once deployed"
		if w.Export != "" {
			what = "`" + w.Export + "`"
			if from := sel.Exporters[w.Export]; from != "" {
				what += " from " + from
			}
		}
		by[w.Stack.Name] = append(by[w.Stack.Name], what)
	}
	var parts []string
	for _, s := range stacks {
		parts = append(parts, fmt.Sprintf("%s (imports %s)", s, strings.Join(by[s], ", ")))
	}
	return "Deployed with this change set, its own diff empty: " + strings.Join(parts, "; ") +
		". cdkd reads an Fn::ImportValue only when the importing stack deploys, so an export that takes a new value (a replaced resource's name or URL) reaches an importer only then, and cdkd's diff cannot show it before the exporter deploys."
}

// NotDeployed warns of the importers a deploy leaves alone because the
// change set does not hold them ("" when there are none): they keep the
// export's old value until they are deployed themselves.
func (sel Selection) NotDeployed() string {
	if len(sel.Outside) == 0 {
		return ""
	}
	var parts []string
	for _, o := range sel.Outside {
		what := "an export whose name is known only once deployed"
		if o.Export != "" {
			what = "`" + o.Export + "`"
			if from := sel.Exporters[o.Export]; from != "" {
				what += " from " + from
			}
		}
		parts = append(parts, fmt.Sprintf("%s (imports %s)", o.Stack.Name, what))
	}
	return "Not deployed, although it imports an export of a stack that deploys: " + strings.Join(parts, "; ") +
		". It is not in this change set (stacks names fewer stacks), so nobody reviewed its diff; it keeps the export's old value until it is deployed itself."
}
