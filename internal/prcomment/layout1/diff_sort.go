package layout1

import (
	"cmp"
	"slices"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// sortedCopy returns the stacks in model.Diff.Sort's order without touching
// the caller's diff: as they are when already sorted (the pipeline sorts
// them), else a sorted copy of every list. Values are shared: nothing here
// modifies them.
func sortedCopy(stacks []model.StackDiff) []model.StackDiff {
	if stacksSorted(stacks) {
		return stacks
	}
	d := model.Diff{Stacks: copyStacks(stacks)}
	d.Sort()
	return d.Stacks
}

// stacksSorted reports whether model.Diff.Sort would leave the stacks as
// they are. It must follow that order exactly.
func stacksSorted(stacks []model.StackDiff) bool {
	if !slices.IsSortedFunc(stacks, func(a, b model.StackDiff) int {
		return cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.Region, b.Region))
	}) {
		return false
	}
	for i := range stacks {
		s := &stacks[i]
		if !slices.IsSortedFunc(s.Changes, func(a, b model.ResourceChange) int { return cmp.Compare(a.LogicalID, b.LogicalID) }) ||
			!slices.IsSortedFunc(s.OutputChanges, func(a, b model.OutputChange) int { return cmp.Compare(a.Name, b.Name) }) ||
			!slices.IsSorted(s.NoEchoReaders) || !stacksSorted(s.Children) {
			return false
		}
		for k := range s.Changes {
			ch := &s.Changes[k]
			if !slices.IsSortedFunc(ch.PropertyChanges, func(a, b model.PropertyChange) int { return cmp.Compare(a.Path, b.Path) }) ||
				!slices.IsSortedFunc(ch.AttributeChanges, func(a, b model.AttributeChange) int { return cmp.Compare(a.Attribute, b.Attribute) }) ||
				!slices.IsSorted(ch.CCAPI) {
				return false
			}
		}
	}
	return true
}

func copyStacks(in []model.StackDiff) []model.StackDiff {
	if in == nil {
		return nil
	}
	out := make([]model.StackDiff, len(in))
	for i, s := range in {
		s.Changes = slices.Clone(s.Changes)
		for k := range s.Changes {
			ch := &s.Changes[k]
			ch.PropertyChanges = slices.Clone(ch.PropertyChanges)
			ch.AttributeChanges = slices.Clone(ch.AttributeChanges)
			ch.CCAPI = slices.Clone(ch.CCAPI)
		}
		s.OutputChanges = slices.Clone(s.OutputChanges)
		s.NoEchoReaders = slices.Clone(s.NoEchoReaders)
		s.Children = copyStacks(s.Children)
		out[i] = s
	}
	return out
}
