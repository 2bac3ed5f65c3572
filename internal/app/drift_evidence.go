package app

import (
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// changeAt addresses one drifted change by index: redaction renames, it
// never reorders.
type changeAt struct{ stack, resource, change int }

// maskCases decides, before redaction (on cdkd's names and its state
// value), why each drifted position would drift if it ends up masked: the
// seed says "by design" of one case only, a NoEcho custom-resource response
// stored as the mask. The position's source comes from the assembly, the
// stored value from the state side of cdkd's report. A stack the assembly
// does not hold is undecided: nothing says which case it is.
func (r *Env) maskCases(d model.Drift) map[changeAt]model.MaskCase {
	out := map[changeAt]model.MaskCase{}
	for i, s := range d.Stacks {
		st, known := r.assemblyStack(s.Stack, s.Region)
		for j, dr := range s.Drifted {
			for k, c := range dr.Changes {
				at := changeAt{i, j, k}
				if !known {
					out[at] = model.MaskUndecided
					continue
				}
				out[at] = maskCase(st, dr.LogicalID, c)
			}
		}
	}
	return out
}

// maskCase is one position's case, given its stack's template.
func maskCase(st assembly.Stack, logicalID string, c model.DriftChange) model.MaskCase {
	switch st.SecretAt(logicalID, c.Path) {
	case model.SecretNoEcho:
		return model.MaskNoEchoParameter
	case model.SecretReference:
		return model.MaskSecretReference
	}
	if c.State.Text() == model.Masked {
		if custom, known := st.CustomResponseAt(logicalID, c.Path); known && custom {
			return model.MaskByDesign
		}
	}
	return model.MaskUndecided
}

// applyMaskCases writes the decided case into every change redaction
// masked; an unmasked change has none.
func applyMaskCases(d *model.Drift, cases map[changeAt]model.MaskCase) {
	for i := range d.Stacks {
		for j := range d.Stacks[i].Drifted {
			for k := range d.Stacks[i].Drifted[j].Changes {
				c := &d.Stacks[i].Drifted[j].Changes[k]
				if c.Secret == model.SecretNone && c.State.Text() != model.Masked && c.AWS.Text() != model.Masked {
					c.MaskCase = model.MaskNone
					continue
				}
				c.MaskCase = cases[changeAt{i, j, k}]
				if c.MaskCase == model.MaskNone {
					c.MaskCase = model.MaskUndecided
				}
			}
		}
	}
}

// assemblyStack is the assembly's stack of that name (and region).
func (r *Env) assemblyStack(name, region string) (assembly.Stack, bool) {
	if r.asm == nil {
		return assembly.Stack{}, false
	}
	if region != "" {
		return r.asm.StackIn(name, region)
	}
	return r.asm.Stack(name)
}

// logEvidence reads cdkd's per-resource lines about resources it did not
// compare, from stderr and from any text after the JSON on stdout. They
// are parsed on cdkd's own words (a masker's *** could break a match) and
// kept redacted.
func logEvidence(res cdkd.Result) []cdkd.LogCause {
	_, text := cdkd.SplitJSON(res.Stdout)
	return cdkd.NotComparedLines(append(text, res.StderrTail...))
}

// redactGroups redacts the names and paths of the groups of cdkd's report
// this version does not know; they hold no values.
func (r *Env) redactGroups(d *model.Drift) {
	for i := range d.Stacks {
		for j := range d.Stacks[i].Groups {
			g := &d.Stacks[i].Groups[j]
			g.Name = r.set.Redact(g.Name)
			for k := range g.Entries {
				e := &g.Entries[k]
				e.LogicalID, e.Type = r.set.Redact(e.LogicalID), r.set.Redact(e.Type)
				for p := range e.Paths {
					e.Paths[p] = r.set.Redact(e.Paths[p])
				}
			}
		}
	}
}
