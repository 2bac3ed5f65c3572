package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
)

// writeAssembly writes a cloud assembly of n stacks: stack i has 1+i%37
// resources, every fifth has a nested stack of 10 resources, and every
// stack depends on the one before it.
func writeAssembly(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	artifacts := map[string]any{}
	for i := range n {
		name := fmt.Sprintf("Stack%03d", i)
		resources := map[string]any{}
		for j := range 1 + i%37 {
			resources[fmt.Sprintf("Queue%d", j)] = map[string]any{"Type": "AWS::SQS::Queue"}
		}
		if i%5 == 0 {
			child := name + ".Nested.json"
			resources["Nested"] = map[string]any{"Type": "AWS::CloudFormation::Stack", "Metadata": map[string]any{"aws:asset:path": child}}
			nested := map[string]any{}
			for j := range 10 {
				nested[fmt.Sprintf("Topic%d", j)] = map[string]any{"Type": "AWS::SNS::Topic"}
			}
			writeJSON(t, filepath.Join(dir, child), map[string]any{"Resources": nested})
		}
		writeJSON(t, filepath.Join(dir, name+".template.json"), map[string]any{"Resources": resources})
		a := map[string]any{
			"type":        "aws:cloudformation:stack",
			"environment": "aws://123456789012/us-east-1",
			"properties":  map[string]any{"templateFile": name + ".template.json"},
		}
		if i > 0 {
			a["dependencies"] = []string{fmt.Sprintf("Stack%03d", i-1)}
		}
		artifacts[name] = a
	}
	writeJSON(t, filepath.Join(dir, "manifest.json"), map[string]any{"artifacts": artifacts})
	return dir
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func loadStacks(t *testing.T, n int) []Stack {
	t.Helper()
	asm, err := assembly.Load(writeAssembly(t, n))
	if err != nil {
		t.Fatal(err)
	}
	stacks, err := FromAssembly(asm, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	return stacks
}

func TestSplitBalancesAndKeepsStacksWhole(t *testing.T) {
	stacks := loadStacks(t, 120)
	if len(stacks) != 120 {
		t.Fatalf("want 120 top-level stacks (nested ones travel with their parent), got %d", len(stacks))
	}
	total, largest := 0, 0
	for _, s := range stacks {
		total += s.Resources
		largest = max(largest, s.Resources)
	}
	m := Split(stacks, Auto(total, len(stacks)))
	if want := (total + ResourcesPerShard - 1) / ResourcesPerShard; len(m.Shard) != want {
		t.Fatalf("auto: want %d shards for %d resources, got %d", want, total, len(m.Shard))
	}
	seen := map[string]int{}
	lo, hi, sum := total, 0, 0
	for i, sh := range m.Shard {
		if want := fmt.Sprintf("%d-of-%d", i+1, len(m.Shard)); sh.ID != want {
			t.Errorf("shard %d: id %q, want %q", i, sh.ID, want)
		}
		n := 0
		for _, name := range strings.Fields(sh.Stacks) {
			seen[name]++
			n += sizeOf(stacks, name)
		}
		if n != sh.Resources {
			t.Errorf("shard %s says %d resources, its stacks hold %d", sh.ID, sh.Resources, n)
		}
		lo, hi, sum = min(lo, n), max(hi, n), sum+n
	}
	if sum != total || len(seen) != len(stacks) {
		t.Fatalf("shards hold %d resources in %d stacks, want %d in %d", sum, len(seen), total, len(stacks))
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("stack %s is in %d shards", name, n)
		}
	}
	if hi-lo > largest {
		t.Errorf("unbalanced: heaviest shard %d, lightest %d, largest stack %d", hi, lo, largest)
	}
}

func sizeOf(stacks []Stack, name string) int {
	i := slices.IndexFunc(stacks, func(s Stack) bool { return s.Name == name })
	if i < 0 {
		return -1
	}
	return stacks[i].Resources
}

func TestSplitIsDeterministic(t *testing.T) {
	stacks := loadStacks(t, 101)
	want := Split(stacks, 7)
	for range 5 {
		shuffled := slices.Clone(stacks)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := Split(shuffled, 7); !slices.Equal(got.Shard, want.Shard) {
			t.Fatalf("same stacks in another order gave another plan:\n%v\n%v", got, want)
		}
	}
	if other := Split(stacks[1:], 7); other.Shard[0].Plan == want.Shard[0].Plan {
		t.Error("another selection of stacks kept the same plan id")
	}
}

func TestSplitCounts(t *testing.T) {
	stacks := []Stack{{"A", 5}, {"B", 3}, {"C", 1}}
	cases := []struct {
		n    int
		want []string
	}{
		{1, []string{"A B C"}},
		{2, []string{"A", "B C"}},
		{3, []string{"A", "B", "C"}},
		{40, []string{"A", "B", "C"}}, // never more shards than stacks
		{0, []string{"A B C"}},
	}
	for _, tc := range cases {
		m := Split(stacks, tc.n)
		var got []string
		for _, s := range m.Shard {
			got = append(got, s.Stacks)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Split(n=%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if m := Split(nil, 4); len(m.Shard) != 1 || m.Shard[0].Stacks != "" {
		t.Errorf("no stacks: want one empty shard, got %+v", m.Shard)
	}
}

func TestAuto(t *testing.T) {
	for _, tc := range []struct{ total, stacks, want int }{
		{0, 0, 1}, {399, 10, 1}, {401, 10, 2}, {10000, 100, MaxAutoShards}, {5000, 3, 3},
	} {
		if got := Auto(tc.total, tc.stacks); got != tc.want {
			t.Errorf("Auto(%d, %d) = %d, want %d", tc.total, tc.stacks, got, tc.want)
		}
	}
}

// An explicit number of shards above auto's cap is honoured up to GitHub's
// 256 jobs of one matrix (it gave 16, silently).
func TestSplitHonoursManyShards(t *testing.T) {
	var stacks []Stack
	for i := range 300 {
		stacks = append(stacks, Stack{Name: fmt.Sprintf("S%03d", i), Resources: 10})
	}
	for _, tc := range []struct{ ask, want int }{{64, 64}, {256, 256}, {300, MaxShards}} {
		if got := len(Split(stacks, tc.ask).Shard); got != tc.want {
			t.Errorf("Split(300 stacks, %d) gave %d shards, want %d", tc.ask, got, tc.want)
		}
	}
}

func TestFromAssemblySelects(t *testing.T) {
	asm, err := assembly.Load(writeAssembly(t, 12))
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromAssembly(asm, []string{"Stack00*", "Stack011"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	want := []string{"Stack000", "Stack001", "Stack002", "Stack003", "Stack004", "Stack005", "Stack006", "Stack007", "Stack008", "Stack009", "Stack011"}
	if !slices.Equal(names, want) {
		t.Errorf("selected %q, want %q", names, want)
	}
	if got[0].Resources != 1+1+10 { // a queue, the nested stack resource, its 10 topics
		t.Errorf("Stack000 with its nested stack: %d resources, want 12", got[0].Resources)
	}
	if _, err := FromAssembly(asm, []string{"Nope*"}, false); err == nil || !strings.Contains(err.Error(), `"Nope*"`) {
		t.Errorf("a selector matching nothing: want an error naming it, got %v", err)
	}
}

func TestFromState(t *testing.T) {
	rows := []Deployed{
		{Stack: "Api", Region: "us-east-1", Resources: 10},
		{Stack: "Api~Db", Region: "us-east-1", Resources: 4},
		{Stack: "Old", Region: "us-east-1", Resources: 2},
		{Stack: "Api", Region: "eu-west-1", Resources: 7},
	}
	got, err := FromState(rows, "us-east-1", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []Stack{{"Api", 14}, {"Old", 2}}
	if !slices.Equal(got, want) {
		t.Errorf("FromState = %v, want %v", got, want)
	}
	got, err = FromState(rows, "", []string{"Ap*"}, false)
	if err != nil || !slices.Equal(got, []Stack{{"Api", 21}}) {
		t.Errorf("FromState(Ap*) = %v, %v", got, err)
	}
	// Each pattern that matches nothing is named, beside one that does.
	_, err = FromState(rows, "", []string{"Api", "Odl", "New*"}, false)
	if err == nil || err.Error() != `no stack in the state bucket matches "Odl", "New*"` {
		t.Errorf("FromState(Api Odl New*) = %v", err)
	}
}
