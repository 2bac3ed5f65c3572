package plan

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	sharding "github.com/cdkd-action/cdkd-action/internal/plan"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// planOf runs the plan command on the given stack records of the state
// bucket (or their failure) and returns what it published and warned.
func planOf(t *testing.T, cfg config.Config, rows []sharding.Deployed, listErr error) (outcome.Outcome, map[string]string, []string) {
	t.Helper()
	var outputs map[string]string
	var warned []string
	o := Run(context.Background(), Options{
		Config:   cfg,
		Deployed: func(context.Context) ([]sharding.Deployed, error) { return rows, listErr },
		Warn:     func(msg string) { warned = append(warned, msg) },
		Publish: func(_ context.Context, p *publish.Publication) error {
			outputs = p.Outputs
			return nil
		},
	})
	return o, outputs, warned
}

// planFor is the inputs of a plan for drift.
func planFor(all bool, shards int) config.Config {
	cfg := config.Config{All: all}
	cfg.For, cfg.Shards = config.CommandDrift, shards
	return cfg
}

// Asking for more shards than there are stacks gives fewer, and says so.
func TestPlanSaysWhenItGivesFewerShards(t *testing.T) {
	rows := []sharding.Deployed{{Stack: "A", Resources: 5}, {Stack: "A~Nested", Resources: 5}, {Stack: "B", Resources: 1}, {Stack: "C", Resources: 1}}
	o, outputs, warned := planOf(t, planFor(true, 64), rows, nil)
	assert.Equal(t, o.Reason, reason.None)
	assert.Equal(t, outputs[publisher.OutputShardCount], "3")
	assert.DeepEqual(t, warned, []string{"shards asks for 64, but the plan has 3: a shard holds at least one stack (a stack and its nested stacks are never split), and there are 3"})
}

// The state bucket's listing failing fails the plan as cdkd's failure (a
// timeout as one), saying what was being done; a stack selector that
// matches no record is bad input.
func TestPlanForDriftFailures(t *testing.T) {
	drift := planFor(true, 0)
	o, outputs, _ := planOf(t, drift, nil, errors.New("cdkd state list exited 1"))
	assert.Equal(t, o.Reason, reason.CdkdFailed)
	assert.Equal(t, o.Message, "list the stacks in the state bucket: cdkd state list exited 1")
	assert.Assert(t, outputs == nil, "nothing is published")

	o, _, _ = planOf(t, drift, nil, fmt.Errorf("run cdkd: %w", cdkd.ErrTimeout))
	assert.Equal(t, o.Reason, reason.Timeout)

	o, _, _ = planOf(t, planFor(false, 0), nil, nil)
	assert.Equal(t, o.Reason, reason.BadInput)
	assert.ErrorContains(t, errors.New(o.Message), "input stacks: expected the stacks to spread over shards, or all: true")
}
