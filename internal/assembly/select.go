package assembly

import (
	"fmt"
	"path"
	"slices"
)

// Select returns the top-level stacks a cdkd command given these stack
// selectors (or --all) works on, as cdkd matches them: a physical name or a
// display path, with `*` wildcards ("MyStage/*"). Nested stacks are never
// selected on their own; they come with their parent. A selector that
// matches nothing is an error, as it is for cdkd.
func (a *Assembly) Select(selectors []string, all bool) ([]Stack, error) {
	var out []Stack
	for _, s := range a.Stacks {
		if s.Parent != "" {
			continue
		}
		if all || slices.ContainsFunc(selectors, func(sel string) bool { return matches(sel, s) }) {
			out = append(out, s)
		}
	}
	if all {
		return out, nil
	}
	for _, sel := range selectors {
		if !slices.ContainsFunc(out, func(s Stack) bool { return matches(sel, s) }) {
			return nil, fmt.Errorf("no stack in the assembly matches %q", sel)
		}
	}
	return out, nil
}

func matches(selector string, s Stack) bool {
	return Selects(selector, s.Name) || Selects(selector, s.DisplayName)
}

// Selects is cdkd's stack selector rule: a name, or a `*` wildcard
// ("MyStage/*").
func Selects(selector, name string) bool {
	ok, err := path.Match(selector, name)
	return ok && err == nil
}

// TreeResources counts a stack's resources with those of every stack nested
// in it, at any depth: cdkd diffs (and deploys) them together, so a plan
// balances shards by it.
func (a *Assembly) TreeResources(top Stack) int {
	n := len(top.Resources)
	for _, s := range a.Stacks {
		if s.Parent == top.Name && s.Region == top.Region {
			n += a.TreeResources(s)
		}
	}
	return n
}
