package assembly

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Select returns the top-level stacks a cdkd command given these stack
// selectors (or --all) works on, as cdkd matches them (StackMatches): a
// physical name or a display path, with `*` wildcards ("MyStage/*"). Nested stacks are never
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
	return StackMatches(selector, s.Name, s.DisplayName)
}

// Selects is cdkd's stack selector rule for a stack known by its name
// alone, as a state record is: see StackMatches.
func Selects(selector, name string) bool {
	return StackMatches(selector, name, "")
}

// StackMatches is cdkd's stack selector rule (0.284's stackMatchesPattern):
// a pattern with a / is matched against the stack's display path
// ("Stage/Api"; its name when it has none), any other against its name; a
// pattern with a * is a regular expression, each * standing for .*,
// anchored at both ends, and any other is the exact name.
func StackMatches(pattern, name, display string) bool {
	target := name
	if strings.Contains(pattern, "/") && display != "" {
		target = display
	}
	if !strings.Contains(pattern, "*") {
		return target == pattern
	}
	re, err := regexp.Compile("^" + strings.ReplaceAll(pattern, "*", ".*") + "$")
	return err == nil && re.MatchString(target)
}

// Unmatched returns, in the order given, the patterns that select no
// top-level stack: cdkd drops such a pattern without a word when another
// one matches, so a typo would quietly leave a stack out.
func (a *Assembly) Unmatched(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		if !slices.ContainsFunc(a.Stacks, func(s Stack) bool { return s.Parent == "" && matches(p, s) }) {
			out = append(out, p)
		}
	}
	return out
}

// UnmatchedNames is Unmatched for stacks known by their names alone (a
// state listing, cdkd's report): the patterns, in the order given, that
// select none of names.
func UnmatchedNames(patterns, names []string) []string {
	var out []string
	for _, p := range patterns {
		if !slices.ContainsFunc(names, func(n string) bool { return Selects(p, n) }) {
			out = append(out, p)
		}
	}
	return out
}

// TopNames are the names of the stacks a selector can select (the nested
// ones come with their parent), sorted, each once.
func (a *Assembly) TopNames() []string {
	var out []string
	for _, s := range a.Stacks {
		if s.Parent == "" {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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

// Exporters returns the stacks whose exports s imports (Fn::ImportValue),
// sorted: the stacks whose state can hold a value s reads from another
// stack. An output whose export name cannot be spelled before deploying
// could be any import, and an import that cannot be spelled could read any
// export: both count, so that no exporter is missed.
func (a *Assembly) Exporters(s Stack) []Stack {
	if len(s.Imports) == 0 && !s.ImportsUnknown {
		return nil
	}
	var out []Stack
	for _, e := range a.Stacks {
		if e.Name == s.Name && e.Region == s.Region {
			continue
		}
		if slices.ContainsFunc(e.Outputs, func(o Output) bool {
			return o.Exported && (s.ImportsUnknown || o.Export == "" || slices.Contains(s.Imports, o.Export))
		}) {
			out = append(out, e)
		}
	}
	return out
}
