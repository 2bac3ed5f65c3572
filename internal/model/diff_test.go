package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
)

func prop(path string, old, new Value, replace bool) PropertyChange {
	return PropertyChange{Path: path, Old: old, New: new, RequiresReplacement: replace}
}

func TestActionsAndCounts(t *testing.T) {
	d := Diff{Stacks: []StackDiff{{
		Stack: "A",
		Changes: []ResourceChange{
			{LogicalID: "New", ChangeType: ChangeCreate},
			{LogicalID: "InPlace", ChangeType: ChangeUpdate, PropertyChanges: []PropertyChange{prop("X", StringValue("a"), StringValue("b"), false)}},
			{LogicalID: "Replaced", ChangeType: ChangeUpdate, PropertyChanges: []PropertyChange{
				prop("Desc", StringValue("a"), StringValue("b"), false),
				prop("Name", StringValue("q1"), StringValue("q2"), true),
			}},
			{LogicalID: "Gone", ChangeType: ChangeDelete},
		},
		OutputChanges: []OutputChange{{Name: "O", ChangeType: OutputAdd}, {Name: "P", ChangeType: OutputRemove}},
		Children:      []StackDiff{{Stack: "Child", Changes: []ResourceChange{{LogicalID: "C", ChangeType: ChangeDelete}}}},
		// A note, never a change.
		NoEchoReaders: []string{"Reader"},
	}}}
	want := map[string]Action{"New": ActionCreate, "InPlace": ActionUpdate, "Replaced": ActionReplace, "Gone": ActionDelete}
	for _, c := range d.Stacks[0].Changes {
		assert.Equal(t, c.Action(), want[c.LogicalID], c.LogicalID)
	}
	assert.DeepEqual(t, d.Stacks[0].Changes[2].ReplacingPaths(), []string{"Name"})
	assert.Equal(t, d.Stacks[0].Changes[2].Destructive(), true)
	assert.Equal(t, d.Stacks[0].Changes[1].Destructive(), false)
	assert.DeepEqual(t, d.Totals(), Counts{Create: 1, Update: 1, Replace: 1, Delete: 2, OutputsAdd: 1, OutputsRemove: 1})
	assert.DeepEqual(t, d.Stacks[0].OwnCounts().Delete, 1)
	assert.Equal(t, d.HasChanges(), true)

	notes := Diff{Stacks: []StackDiff{{Stack: "A", NoEchoReaders: []string{"R"}}}}
	assert.Equal(t, notes.HasChanges(), false, "a NoEcho note is not a change")
}

func TestValueKeepsAbsentAndNullApart(t *testing.T) {
	var pc PropertyChange
	assert.NilError(t, json.Unmarshal([]byte(`{"path":"Description","oldValue":null,"requiresReplacement":false}`), &pc))
	assert.Equal(t, pc.Old.Present(), true)
	assert.Equal(t, pc.Old.IsNull(), true)
	assert.Equal(t, pc.New.Present(), false, "a removed property has no newValue key")
	out, err := json.Marshal(pc)
	assert.NilError(t, err)
	assert.Equal(t, string(out), `{"path":"Description","oldValue":null,"requiresReplacement":false}`)
}

func TestValueText(t *testing.T) {
	assert.Equal(t, StringValue("a\"b").Text(), `a"b`)
	assert.Equal(t, JSONValue(`{ "b": 1, "a": [1, 2] }`).Text(), `{"b":1,"a":[1,2]}`)
	assert.Equal(t, JSONValue("30").Text(), "30")
	assert.Equal(t, Value{}.Text(), "")
}

func TestWalkGivesNestedPaths(t *testing.T) {
	d := Diff{Stacks: []StackDiff{{Stack: "P", Children: []StackDiff{{Stack: "C", Children: []StackDiff{{Stack: "G"}}}}}}}
	var paths []string
	d.Walk(func(p string, _ StackDiff) { paths = append(paths, p) })
	assert.DeepEqual(t, paths, []string{"P", "P/C", "P/C/G"})
}

// TestSortAllocatesNothing: a diff is sorted when decoded and again before
// it is reported; with tens of thousands of short lists, an allocation per
// list (sort.SliceStable's) was a tenth of a local render's allocations.
func TestSortAllocatesNothing(t *testing.T) {
	s := StackDiff{Stack: "B"}
	for i := range 500 {
		s.Changes = append(s.Changes, ResourceChange{
			LogicalID:        fmt.Sprintf("R%03d", 499-i),
			PropertyChanges:  []PropertyChange{{Path: "B"}, {Path: "A"}},
			AttributeChanges: []AttributeChange{{Attribute: "UpdateReplacePolicy"}, {Attribute: "DeletionPolicy"}},
			CCAPI:            []string{"b", "a"},
		})
	}
	d := Diff{Stacks: []StackDiff{s, {Stack: "A"}}}
	d.Sort()
	if d.Stacks[0].Stack != "A" || d.Stacks[1].Changes[0].LogicalID != "R000" || d.Stacks[1].Changes[0].PropertyChanges[0].Path != "A" ||
		d.Stacks[1].Changes[0].AttributeChanges[0].Attribute != "DeletionPolicy" || d.Stacks[1].Changes[0].CCAPI[0] != "a" {
		t.Fatalf("not sorted: %+v", d.Stacks[1].Changes[0])
	}
	if n := testing.AllocsPerRun(5, d.Sort); n != 0 {
		t.Errorf("sorting a 500-resource diff allocated %v times", n)
	}
}

// sortStable orders as slices.SortStableFunc does, equal keys kept in their
// order, on lists sorted, reversed, shuffled and full of ties.
func TestSortStableMatchesTheLibrary(t *testing.T) {
	type item struct{ key, seq int }
	rng := rand.New(rand.NewPCG(1, 2))
	byKey := func(a, b *item) int { return cmp.Compare(a.key, b.key) }
	for n := range 40 {
		for _, keys := range []int{1, 3, n + 1} {
			in := make([]item, n)
			for i := range in {
				in[i] = item{key: rng.IntN(keys), seq: i}
			}
			for _, shape := range []func([]item){
				func([]item) {},
				func(s []item) { slices.SortStableFunc(s, func(a, b item) int { return byKey(&a, &b) }) },
				func(s []item) { slices.Reverse(s) },
			} {
				got := slices.Clone(in)
				shape(got)
				want := slices.Clone(got)
				slices.SortStableFunc(want, func(a, b item) int { return byKey(&a, &b) })
				sortStable(got, byKey)
				assert.Assert(t, slices.Equal(got, want), "%v", got)
			}
		}
	}
}
