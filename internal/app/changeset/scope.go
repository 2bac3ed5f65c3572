package changeset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// DeployScope says which stacks a deploy of change set d touches, and why,
// for the diff report (what reviewers approve) and the deploy report alike.
// The rule is one: with all: true every stack is diffed and deployed; with
// stacks named (wildcards included) cdkd deploy runs with --exclusively, so
// it deploys exactly the stacks the diff showed and never the stacks they
// depend on, which nobody reviewed. Dependencies the assembly names that
// the diff does not hold are listed, so nobody expects them deployed. ""
// with all: true.
//
// A shard run says nothing: its stacks are the plan's, not the deploy's, and
// the aggregate says it once for the whole change set.
func DeployScope(cfg config.Config, asm *assembly.Assembly, d model.Diff) string {
	if cfg.All || len(cfg.Stacks) == 0 || cfg.Shard != nil {
		return ""
	}
	var names []string
	for _, s := range d.Stacks {
		names = append(names, s.Stack)
	}
	if len(names) == 0 {
		return ""
	}
	var left []string
	if asm != nil {
		for _, s := range d.Stacks {
			st, ok := asm.Stack(s.Stack)
			if !ok {
				continue
			}
			for _, dep := range st.DependsOn {
				if !slices.Contains(names, dep) {
					left = append(left, fmt.Sprintf("%s (a dependency of %s)", dep, s.Stack))
				}
			}
		}
	}
	msg := fmt.Sprintf("A deploy touches exactly the stacks in this diff (%s): stacks is set, so cdkd deploy runs with --exclusively and never deploys the stacks they depend on with them", strings.Join(names, ", "))
	if len(left) > 0 {
		slices.Sort(left)
		msg += "; not deployed: " + strings.Join(slices.Compact(left), ", ") + " (deploy it first, or add it to stacks)"
	}
	return msg + "."
}
