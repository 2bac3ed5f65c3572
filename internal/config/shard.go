package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Commands that spread one review over a GitHub Actions matrix.
const (
	// CommandPlan splits the selected stacks into shards.
	CommandPlan Command = "plan"
	// CommandAggregate merges the shards' reports and publishes them.
	CommandAggregate Command = "aggregate"
)

// Sharding is what the plan, the shard runs and the aggregate read.
type Sharding struct {
	// For is the command a plan is for: diff or drift.
	For Command
	// Shards is how many shards a plan asks for; 0 means auto.
	Shards int
	// Publish is false on a shard run: it writes its report JSON, job
	// summary and outputs, and nothing through the API.
	Publish bool
	// Shard, on a shard run, is the matrix entry it runs.
	Shard *Shard
	// Reports is where the aggregate finds the shard reports: a directory
	// (searched recursively) or a glob.
	Reports string
	// Matrix is the plan's matrix output, for the aggregate.
	Matrix string
}

// Shard is a matrix entry as `plan` writes it and a shard run gets it back
// through `shard: ${{ toJSON(matrix.shard) }}`.
type Shard struct {
	ID        string `json:"id"`
	Stacks    string `json:"stacks"`
	Resources int    `json:"resources"`
	Plan      string `json:"plan"`
}

func loadSharding(cs Commands, values map[string]string) (Sharding, error) {
	s := Sharding{
		For:     Command(strings.TrimSpace(values["for"])),
		Reports: strings.TrimSpace(values["reports"]),
		Matrix:  strings.TrimSpace(values["matrix"]),
	}
	var err error
	if s.Publish, err = ParseBool("publish", values["publish"]); err != nil {
		return s, err
	}
	if spec, ok := cs.Lookup(s.For); !ok || !spec.Shardable {
		return s, bad("for", "expected %s, got %q", cs.shardable(), s.For)
	}
	switch v := strings.TrimSpace(values["shards"]); v {
	case "", "auto":
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 256 {
			return s, bad("shards", "expected auto or a whole number from 1 to 256, got %q", v)
		}
		s.Shards = n
	}
	if v := strings.TrimSpace(values["shard"]); v != "" {
		var sh Shard
		if err := json.Unmarshal([]byte(v), &sh); err != nil || sh.ID == "" || sh.Plan == "" {
			return s, bad("shard", "expected the matrix entry of a plan (shard: ${{ toJSON(matrix.shard) }}), with its id and plan")
		}
		s.Shard = &sh
	}
	return s, nil
}

// validateSharding checks what only makes sense together with the command.
func (c Config) validateSharding(cs Commands) error {
	if c.Shard != nil {
		if spec, _ := cs.Lookup(c.Command); !spec.Shardable {
			return bad("shard", "only works with command: %s", cs.shardable())
		}
		if c.DriftResolution != ResolutionNone {
			return bad("drift-resolution", "a shard only detects: resolve drift in one job, once the aggregate has shown the whole (set drift-resolution: none on the shards)")
		}
		if want := strings.Fields(c.Shard.Stacks); len(c.Stacks) > 0 && strings.Join(c.Stacks, " ") != strings.Join(want, " ") {
			return bad("stacks", "expected the shard's stacks %q, got %q", c.Shard.Stacks, strings.Join(c.Stacks, " "))
		}
	}
	if c.Command == CommandAggregate {
		if c.Reports == "" {
			return bad("reports", "expected the directory (or a glob) holding the shards' report JSON files")
		}
		if c.Matrix == "" {
			return bad("matrix", "expected the plan's matrix output")
		}
	}
	return nil
}

// ShardWarnings says what a shard run does with inputs that would publish:
// a shard never writes through the API (its review would be partial, with
// a partial digest), whatever publish says; the aggregate posts the whole.
func (c Config) ShardWarnings() []string {
	if c.Shard == nil || !c.Publish {
		return nil
	}
	return []string{fmt.Sprintf("shard %s publishes nothing through the API although publish is true: a shard's review would be partial; the aggregate job posts the whole review (set publish: false on the shards to say so)", c.Shard.ID)}
}
