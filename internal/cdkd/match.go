package cdkd

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrDisplayPath is wrapped by MatchSaved's refusal of a pattern with a
// "/": cdkd matches it against display paths, which a saved report does
// not hold.
var ErrDisplayPath = errors.New("cdkd matches a pattern with a / against display paths")

// MatchSaved selects, among the stack names of a saved report (cdkd's
// diff or drift JSON), those patterns match by cdkd's own rule (0.284's
// stackMatchesPattern): a pattern with a * is a regular expression, each
// * standing for .*, anchored at both ends; any other pattern is the exact
// stack name. A stack matched by several patterns is selected once, in
// the report's order.
//
// cdkd matches a pattern with a "/" against the stack's display path
// (Stage/Stack) instead of its name; a saved report holds names only, so
// such a pattern cannot be evaluated and is refused, saying so. Each
// pattern must match a stack: one that matches nothing is refused, named,
// with the stacks the report holds (cdkd drops it without a word when
// another pattern matches).
func MatchSaved(names, patterns []string) ([]string, error) {
	matchers := make([]func(string) bool, 0, len(patterns))
	for _, p := range patterns {
		m, err := stackPattern(p)
		if err != nil {
			return nil, err
		}
		matchers = append(matchers, m)
	}
	var out, unmatched []string
	seen := map[string]bool{}
	for i, m := range matchers {
		hit := false
		for _, name := range names {
			if m(name) {
				hit = true
				break
			}
		}
		if !hit {
			unmatched = append(unmatched, patterns[i])
		}
	}
	for _, name := range names {
		for _, m := range matchers {
			if m(name) && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	if len(unmatched) > 0 {
		held := "no stack"
		if len(names) > 0 {
			held = strings.Join(names, ", ")
		}
		what := "this pattern matches"
		if len(unmatched) > 1 {
			what = "these patterns match"
		}
		quoted := make([]string, len(unmatched))
		for i, p := range unmatched {
			quoted[i] = fmt.Sprintf("%q", p)
		}
		return nil, fmt.Errorf("%s: %s no stack of the saved report, which holds %s; each pattern must match at least one (cdkd drops one that matches nothing when another matches)", strings.Join(quoted, ", "), what, held)
	}
	return out, nil
}

// stackPattern is cdkd's match of one pattern against a stack name.
func stackPattern(p string) (func(string) bool, error) {
	if strings.Contains(p, "/") {
		return nil, fmt.Errorf("%q: %w (Stage/Stack), which a saved report does not hold: name the stacks by stack name", p, ErrDisplayPath)
	}
	if !strings.Contains(p, "*") {
		return func(name string) bool { return name == p }, nil
	}
	re, err := regexp.Compile("^" + strings.ReplaceAll(p, "*", ".*") + "$")
	if err != nil {
		return nil, fmt.Errorf("%q: cdkd reads a pattern with * as a regular expression, and this one cannot be evaluated here the same way (%v)", p, err)
	}
	return re.MatchString, nil
}
