package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// destructiveAllowed: every delete and replacement is allowed, by
// allow-destructive, the destructive label of a pull request whose review
// holds it (added as an approval is given, see CountApprovals), or
// allow-destroy-types. The decision lists them all, allowed or
// not.
type destructiveAllowed struct{}

func (destructiveAllowed) about() about { return about{reason: reason.DestructiveRefused} }

func (destructiveAllowed) check(s *state) *finding {
	p, rv := s.p, s.rv
	s.d.Destructive = destructive(p, rv, s.cur.Diff, s.coveredBy())
	var refused []string
	for _, x := range s.d.Destructive {
		if x.AllowedBy == "" {
			refused = append(refused, describe(x))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s would be destroyed and nothing allows it: %s. Allow it with the pull request label %q (added after the diff posted the review of the last push and before the merge, by a person with write access other than the author and the pusher of that head), the input allow-destructive: true, or the resource types in allow-destroy-types.",
		count(len(refused), "resource"), strings.Join(refused, "; "), p.DestructiveLabel)
	batch := len(rv.Batch) > 0
	for _, one := range rv.all() {
		if len(one.Approvals.DestructiveIgnored) == 0 {
			continue
		}
		if batch {
			msg += fmt.Sprintf(" Pull request #%d:", one.PR)
		}
		msg += " Not counted: " + strings.Join(one.Approvals.DestructiveIgnored, "; ") + "."
	}
	return &finding{title: "Destructive changes refused", msg: msg}
}

// destructive lists every delete and replacement in d with what allows it.
func destructive(p Policy, rv Review, d model.Diff, by map[string][]int) []Destructive {
	labelled := func(prs ...int) string {
		for _, one := range rv.all() {
			if p.DestructiveLabel != "" && one.PR != 0 && slices.Contains(prs, one.PR) && one.Approvals.DestructiveBy != "" {
				return "the pull request label " + p.DestructiveLabel
			}
		}
		return ""
	}
	var out []Destructive
	d.Walk(func(path string, s model.StackDiff) {
		for _, ch := range s.Changes {
			if !ch.Destructive() {
				continue
			}
			// The label of a pull request whose review holds the change
			// approves it; with the reviewed change set whole, its own.
			label := labelled(rv.PR)
			if by != nil {
				label = labelled(by[changeKey(path, s.Region, ch.LogicalID)]...)
			}
			x := Destructive{Stack: path, Region: s.Region, LogicalID: ch.LogicalID, Type: ch.ResourceType, Action: ch.Action(), ForcedBy: ch.ReplacingPaths(),
				UnknownType: !ch.ChangeType.Known()}
			switch {
			case p.AllowDestructive:
				x.AllowedBy = "allow-destructive: true"
			case label != "":
				x.AllowedBy = label
			case x.UnknownType:
				// What an unknown change does is not known: a list of
				// types that may be destroyed does not approve it.
			case slices.Contains(p.AllowDestroyTypes, ch.ResourceType):
				x.AllowedBy = "allow-destroy-types (" + ch.ResourceType + ")"
			}
			out = append(out, x)
		}
	})
	return out
}

func describe(x Destructive) string {
	s := fmt.Sprintf("%s %s (%s) in %s", x.Action, x.LogicalID, x.Type, x.Stack)
	if x.UnknownType {
		s += ", a change type cdkd-action does not know, so it may destroy the resource; allow-destroy-types does not approve it"
	}
	if len(x.ForcedBy) > 0 {
		s += ", forced by " + strings.Join(x.ForcedBy, ", ")
	}
	return s
}
