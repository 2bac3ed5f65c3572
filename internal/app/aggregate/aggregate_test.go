package aggregate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/config"
	sharding "github.com/cdkd-action/cdkd-action/internal/plan"
)

// Each of the plan's shards needs exactly one good report about the
// commit; anything else is named, and only good reports are merged.
func TestMatchShards(t *testing.T) {
	const head = "1111111111111111111111111111111111111111"
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		assert.NilError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	report := func(name, shard, planID, commit, errText string) string {
		return write(name, fmt.Sprintf(`{"schemaVersion":1,"kind":"diff","shard":{"id":%q,"plan":%q},"headSha":%q,"error":%q}`, shard, planID, commit, errText))
	}
	m := sharding.Matrix{Shard: []sharding.Shard{
		{ID: "1-of-6", Stacks: "A", Plan: "p"}, {ID: "2-of-6", Stacks: "B", Plan: "p"}, {ID: "3-of-6", Stacks: "C", Plan: "p"},
		{ID: "4-of-6", Stacks: "D", Plan: "p"}, {ID: "5-of-6", Stacks: "E", Plan: "p"}, {ID: "6-of-6", Stacks: "F", Plan: "p"},
	}}
	files := []string{
		report("1.json", "1-of-6", "p", head, ""),
		report("3a.json", "3-of-6", "p", head, ""), report("3b.json", "3-of-6", "p", head, ""),
		report("4.json", "4-of-6", "other", head, ""),
		report("5.json", "5-of-6", "p", "2222222222222222222222222222222222222222", ""),
		report("6.json", "6-of-6", "p", head, "cdkd could not read the state bucket"),
		report("9.json", "9-of-6", "p", head, ""),
		write("cdkd.json", `[{"stack":"A"}]`), // cdkd's own JSON in the artifact: not ours, skipped
		write("noshard.json", `{"schemaVersion":1,"kind":"diff","headSha":"`+head+`"}`),
	}
	got, problems := matchShards(m, files, head)
	assert.Equal(t, len(got), 1)
	assert.Equal(t, got[0].Shard.ID, "1-of-6")
	assert.DeepEqual(t, problems, []string{
		filepath.Join(dir, "noshard.json") + " is not a shard's report (it has no shard id: set shard on the shard jobs)",
		"shard 2-of-6 (B) has no report: its job failed before writing one, was cancelled, or did not upload it",
		"shard 3-of-6 has 2 reports (" + filepath.Join(dir, "3a.json") + "): give each shard's artifact its own name",
		"shard 4-of-6's report is from another plan (other, not p)",
		"shard 5-of-6's report is for commit 2222222, not 1111111",
		"shard 6-of-6 failed: cdkd could not read the state bucket",
		"a report names shard 9-of-6, which the plan does not have",
	})

	// Without a commit to match, any commit is the run's.
	got, _ = matchShards(m, files, "")
	assert.Equal(t, len(got), 2, "1-of-6 and 5-of-6")
}

// A diff's shards report on the pull request's head, a drift's on the
// checked-out commit.
func TestShardCommit(t *testing.T) {
	var o Options
	o.GitHub.HeadSHA, o.GitHub.SHA = "head", "merge"
	o.Config.For = config.CommandDiff
	assert.Equal(t, o.shardCommit(), "head")
	o.Config.For = config.CommandDrift
	assert.Equal(t, o.shardCommit(), "merge")
	o.Config.For, o.GitHub.HeadSHA = config.CommandDiff, ""
	assert.Equal(t, o.shardCommit(), "merge", "a diff outside a pull request")
}
