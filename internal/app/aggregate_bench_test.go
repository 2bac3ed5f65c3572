package app

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/plan"
)

// BenchmarkAggregate measures the aggregate job of a 16-shard matrix over a
// 10,000-resource, 50-stack diff, in one process: read the 16 shard
// reports, check them against the plan, merge, digest, and render every
// channel (locally: the job summary and stdout) and the report JSON.
func BenchmarkAggregate(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("TMPDIR", dir)
	d, err := cdkd.DecodeDiff([]byte(cdkdtest.DiffJSON(50, 200)))
	if err != nil {
		b.Fatal(err)
	}
	var stacks []plan.Stack
	byName := map[string]model.StackDiff{}
	for _, s := range d.Stacks {
		stacks = append(stacks, plan.Stack{Name: s.Stack, Resources: len(s.Changes)})
		byName[s.Stack] = s
	}
	m := plan.Split(stacks, 16)
	size := int64(0)
	for _, sh := range m.Shard {
		var part model.Diff
		for _, name := range strings.Fields(sh.Stacks) {
			part.Stacks = append(part.Stacks, byName[name])
		}
		part.Sort()
		o := model.Origin{CdkdVersion: "0.284.40", Shard: &model.ShardRef{ID: sh.ID, Plan: sh.Plan}}
		raw, err := json.Marshal(model.NewDiffResult(o, "", part.Digest(), part))
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(raw))
		sub := filepath.Join(dir, "reports", "cdkd-diff-"+sh.ID)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "diff.json"), raw, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	matrix, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	getenv := func(string) string { return "" }
	args := []string{"--local", "--command=aggregate", "--working-directory", dir,
		"--reports", filepath.Join(dir, "reports"), "--matrix", string(matrix)}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		a := &App{Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv, Args: args}
		if code := a.Run(context.Background()); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(len(m.Shard)), "shards")
}
