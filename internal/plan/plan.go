// Package plan splits the stacks of one review into shards for a GitHub
// Actions matrix: each shard is a job that diffs or drift-checks some of the
// stacks, and `aggregate` merges their reports into the one review a single
// job would have written. A stack is never split (its nested stacks travel
// with it), shards are balanced by resource count, and the same stacks give
// the same plan, so a re-run lands every stack in the same shard.
package plan

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// ResourcesPerShard is how many resources `shards: auto` puts in a shard:
// enough to amortise a runner's start-up, few enough to finish quickly.
const ResourcesPerShard = 400

// MaxAutoShards caps `shards: auto`: enough parallel jobs for most
// repositories without filling an organisation's concurrent-job quota.
const MaxAutoShards = 16

// MaxShards caps an explicit `shards: N`: GitHub runs at most 256 jobs from
// one matrix.
const MaxShards = 256

// Stack is one unit of work: a top-level stack with its nested stacks'
// resources counted in.
type Stack struct {
	Name      string
	Resources int
}

// Shard is one matrix entry. Its JSON is what a workflow reads as
// `matrix.shard`: `stacks` is ready for the action's `stacks` input.
type Shard struct {
	ID        string `json:"id"`
	Stacks    string `json:"stacks"`
	Resources int    `json:"resources"`
	// Plan identifies the plan the shard belongs to, so `aggregate` can
	// refuse a report left over from another plan (another commit, another
	// selection of stacks, another number of shards).
	Plan string `json:"plan"`
}

// Matrix is the `matrix` output, the value of `strategy.matrix`.
type Matrix struct {
	Shard []Shard `json:"shard"`
}

// Auto is the number of shards `shards: auto` gives for total resources:
// about one per ResourcesPerShard, at least one, at most MaxAutoShards and
// never more than there are stacks.
func Auto(total, stacks int) int {
	n := (total + ResourcesPerShard - 1) / ResourcesPerShard
	return clamp(min(n, MaxAutoShards), stacks)
}

func clamp(n, stacks int) int {
	n = min(n, MaxShards, stacks)
	return max(n, 1)
}

// Split assigns stacks to n shards (clamped to [1, MaxShards] and to the
// number of stacks), largest stack first into the lightest shard: the
// classic longest-processing-time rule, which keeps the heaviest shard
// within 4/3 of the best possible. Ties break by name, so the result is a
// function of the input alone.
func Split(stacks []Stack, n int) Matrix {
	stacks = slices.Clone(stacks)
	slices.SortFunc(stacks, func(a, b Stack) int {
		return cmp.Or(cmp.Compare(b.Resources, a.Resources), cmp.Compare(a.Name, b.Name))
	})
	n = clamp(n, len(stacks))
	bins := make([][]string, n)
	load := make([]int, n)
	for _, s := range stacks {
		i := lightest(load)
		bins[i] = append(bins[i], s.Name)
		load[i] += s.Resources
	}
	m := Matrix{Shard: make([]Shard, 0, n)}
	for i, names := range bins {
		if len(names) == 0 {
			continue // no stacks at all: one empty shard is still returned below
		}
		slices.Sort(names)
		m.Shard = append(m.Shard, Shard{Stacks: strings.Join(names, " "), Resources: load[i]})
	}
	if len(m.Shard) == 0 {
		m.Shard = append(m.Shard, Shard{})
	}
	id := planID(m.Shard)
	for i := range m.Shard {
		m.Shard[i].ID = fmt.Sprintf("%d-of-%d", i+1, len(m.Shard))
		m.Shard[i].Plan = id
	}
	return m
}

// lightest is the index of the least loaded shard, the first on a tie.
func lightest(load []int) int {
	best := 0
	for i, l := range load {
		if l < load[best] {
			best = i
		}
	}
	return best
}

// planID is a short hash of which stacks go where: the same plan from the
// same inputs, a different one as soon as any stack moves.
func planID(shards []Shard) string {
	h := sha256.New()
	for _, s := range shards {
		fmt.Fprintf(h, "%s\x00%d\n", s.Stacks, s.Resources)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
