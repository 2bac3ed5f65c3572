package config

import (
	"fmt"
	"strings"
)

// shownStacks bounds the stack names a refusal lists: an app of hundreds
// of stacks would otherwise fill the line.
const shownStacks = 10

// UnmatchedStacks refuses the patterns of the stacks input that match no
// stack of where ("the cloud assembly", "the state bucket"), naming each
// and the stacks there are; nil when every pattern matched. cdkd would
// drop such a pattern without a word whenever another one matches.
func UnmatchedStacks(unmatched []string, where string, held []string) error {
	if len(unmatched) == 0 {
		return nil
	}
	there := "it holds no stack"
	if len(held) > 0 {
		shown := held[:min(len(held), shownStacks)]
		there = "it holds " + strings.Join(shown, ", ")
		if more := len(held) - len(shown); more > 0 {
			there += fmt.Sprintf(" and %d more", more)
		}
	}
	what := "this pattern matches"
	if len(unmatched) > 1 {
		what = "these patterns match"
	}
	return bad("stacks", "%s: %s no stack of %s (%s); each pattern must match at least one, or cdkd would quietly leave it out",
		strings.Join(quoteAll(unmatched), ", "), what, where, there)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
