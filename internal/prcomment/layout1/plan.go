package layout1

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/plan"
)

// PlanMarkdown shows how a plan spread the stacks: one row per shard.
func PlanMarkdown(m plan.Matrix, command string) string {
	var b strings.Builder
	total := 0
	for _, s := range m.Shard {
		total += s.Resources
	}
	fmt.Fprintf(&b, "## cdkd %s plan: %d shard%s, %d resources\n\n", Text(command), len(m.Shard), plural(len(m.Shard)), total)
	if len(m.Shard) > 0 {
		fmt.Fprintf(&b, "Plan %s.\n\n", Code(m.Shard[0].Plan))
	}
	b.WriteString("| shard | resources | stacks |\n|---|---:|---|\n")
	for _, s := range m.Shard {
		stacks := "(none)"
		if names := strings.Fields(s.Stacks); len(names) > 0 {
			for i, n := range names {
				names[i] = Code(n)
			}
			stacks = strings.Join(names, " ")
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", Text(s.ID), s.Resources, stacks)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
