package redact

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// UnplacedNotes turns what Drift or Diff could not place into the stacks
// whose every value is hidden (as the report names them, redacted with set)
// and the notes that say why and how to see the values. noAssembly is the
// note for a run without any assembly (haveAssembly false; "" when another
// note says it already); what names the values ("drifted values").
func UnplacedNotes(unplaced []Unplaced, set *secrets.Set, haveAssembly bool, noAssembly, what string) (hidden, notes []string) {
	var notIn, resources []string
	byWhy := map[string][]string{}
	var whys []string
	for _, u := range unplaced {
		name := set.Redact(u.Stack)
		switch {
		case u.LogicalID != "":
			resources = append(resources, name+"/"+set.Redact(u.LogicalID))
			continue
		case u.Why == WhyNoAssembly:
		case u.Why == WhyStackNotAssembly:
			notIn = append(notIn, name)
		default:
			if _, ok := byWhy[u.Why]; !ok {
				whys = append(whys, u.Why)
			}
			byWhy[u.Why] = append(byWhy[u.Why], name)
		}
		hidden = append(hidden, name)
	}
	if !haveAssembly && len(hidden) > 0 && noAssembly != "" {
		notes = append(notes, noAssembly)
	}
	shown := "; the paths still show."
	if len(notIn) > 0 {
		stacks, was := "this stack", "was"
		if len(notIn) > 1 {
			stacks, was = "these stacks", "were"
		}
		notes = append(notes, "Values hidden in "+strings.Join(notIn, ", ")+": the cloud assembly does not hold "+stacks+", so NoEcho positions there are unknown — "+
			"pass the assembly "+stacks+" "+was+" synthesized from as app to see them. Their "+what+" show as ***"+shown)
	}
	for _, why := range whys {
		notes = append(notes, "Values hidden in "+strings.Join(byWhy[why], ", ")+": "+set.Redact(why)+", so NoEcho positions there are unknown — "+
			"pass the assembly that deployed it, with its nested templates, as app to see them. Its "+what+" show as ***"+shown)
	}
	if len(resources) > 0 {
		notes = append(notes, "Values hidden at "+strings.Join(resources, ", ")+": "+WhyNotInTemplate+", so whether they are secret is unknown — "+
			"pass the assembly that deployed them as app to see them. Their "+what+" show as *** (🔒 unknown position)"+shown)
	}
	return hidden, notes
}
