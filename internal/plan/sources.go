package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
)

// FromAssembly lists the stacks a diff with these selectors (or all) covers,
// each sized with its nested stacks: what the code says will exist.
func FromAssembly(asm *assembly.Assembly, selectors []string, all bool) ([]Stack, error) {
	tops, err := asm.Select(selectors, all)
	if err != nil {
		return nil, err
	}
	size := map[string]int{}
	for _, s := range tops {
		size[s.Name] += asm.TreeResources(s) // one name in two regions is one selector for cdkd
	}
	return fromSizes(size), nil
}

// Deployed is one stack record in the state bucket, as the caller read it
// (from cdkd's state list): planning needs only its name, region and size,
// not the tool that listed it.
type Deployed struct {
	Stack     string
	Region    string
	Resources int
}

// FromState lists the stacks a drift with these selectors (or all) checks:
// what the state bucket says is deployed, in region when one is given.
// Nested stacks' records ("Parent~Child") are counted with their parent, as
// cdkd checks them together.
func FromState(rows []Deployed, region string, selectors []string, all bool) ([]Stack, error) {
	size := map[string]int{}
	for _, r := range rows {
		if region != "" && r.Region != region {
			continue
		}
		top, _, _ := strings.Cut(r.Stack, "~")
		size[top] += r.Resources
	}
	if !all {
		for name := range size {
			if !slices.ContainsFunc(selectors, func(sel string) bool { return assembly.Selects(sel, name) }) {
				delete(size, name)
			}
		}
		var unmatched []string
		for _, sel := range selectors {
			if !matchesAny(sel, size) {
				unmatched = append(unmatched, fmt.Sprintf("%q", sel))
			}
		}
		if len(unmatched) > 0 {
			// Each is named: cdkd would drop one when another matches.
			return nil, fmt.Errorf("no stack in the state bucket matches %s", strings.Join(unmatched, ", "))
		}
	}
	return fromSizes(size), nil
}

func matchesAny(sel string, size map[string]int) bool {
	for name := range size {
		if assembly.Selects(sel, name) {
			return true
		}
	}
	return false
}

func fromSizes(size map[string]int) []Stack {
	out := make([]Stack, 0, len(size))
	for name, n := range size {
		out = append(out, Stack{Name: name, Resources: n})
	}
	slices.SortFunc(out, func(a, b Stack) int { return strings.Compare(a.Name, b.Name) })
	return out
}
