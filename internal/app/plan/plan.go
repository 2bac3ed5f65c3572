// Package plan is the plan command: it spreads the stacks a diff or drift
// would cover over shards for a matrix of jobs (the matrix and shard-count
// outputs, and the plan in the job summary).
package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	sharding "github.com/cdkd-action/cdkd-action/internal/plan"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Options are what the plan command uses, named, so that a test hands it
// the stacks and reads what it publishes without a step around it.
type Options struct {
	Config config.Config
	// Assembly is the cloud assembly, nil when app is not one.
	Assembly *assembly.Assembly
	// Deployed lists the stack records of the state bucket (StateList).
	Deployed func(ctx context.Context) ([]sharding.Deployed, error)
	Warn     func(msg string)
	// Publish writes the plan to the job summary and the outputs (stdout in
	// a local run): a plan posts nothing through the API.
	Publish func(ctx context.Context, p *publish.Publication) error
}

// Run plans the shards.
func Run(ctx context.Context, o Options) outcome.Outcome {
	stacks, err := o.stacks(ctx)
	if err != nil {
		if config.IsInputError(err) {
			return outcome.Failed(reason.BadInput, err)
		}
		return outcome.Failed(outcome.CdkdReason(err, reason.CdkdFailed), err)
	}
	n := o.Config.Shards
	if n == 0 {
		total := 0
		for _, s := range stacks {
			total += s.Resources
		}
		n = sharding.Auto(total, len(stacks))
	}
	m := sharding.Split(stacks, n)
	if o.Config.Shards > len(m.Shard) {
		// Never fewer shards than asked without saying so.
		o.Warn(fmt.Sprintf("shards asks for %d, but the plan has %d: a shard holds at least one stack (a stack and its nested stacks are never split), and there are %d", o.Config.Shards, len(m.Shard), len(stacks)))
	}
	b, err := json.Marshal(m)
	if err != nil {
		return outcome.Failed(reason.CdkdFailed, fmt.Errorf("encode the plan: %w", err))
	}
	md := reporters.PlanMarkdown(m, string(o.Config.For))
	p := &publish.Publication{
		Kind:    "plan",
		Render:  func(reporters.Budget) string { return md },
		Outputs: map[string]string{publisher.OutputMatrix: string(b), publisher.OutputShardCount: strconv.Itoa(len(m.Shard))},
	}
	if err := o.Publish(ctx, p); err != nil {
		return outcome.Failed(reason.APIFailed, err)
	}
	return outcome.Succeeded()
}

// stacks lists the stacks to spread, with their sizes: from the cloud
// assembly for a diff (what the code will deploy), from the state bucket
// for drift (what is deployed, code or not).
func (o Options) stacks(ctx context.Context) ([]sharding.Stack, error) {
	if !o.Config.All && len(o.Config.Stacks) == 0 {
		return nil, &config.InputError{Input: "stacks", Msg: "expected the stacks to spread over shards, or all: true"}
	}
	if o.Config.For == config.CommandDiff {
		if o.Assembly == nil {
			return nil, &config.InputError{Input: "app", Msg: fmt.Sprintf("a plan for diff reads the stacks and their sizes from a synthesized cloud assembly; expected a directory such as cdk.out, got %q", o.Config.App)}
		}
		stacks, err := sharding.FromAssembly(o.Assembly, o.Config.Stacks, o.Config.All)
		if err != nil {
			return nil, &config.InputError{Input: "stacks", Msg: err.Error()}
		}
		return stacks, nil
	}
	rows, err := o.Deployed(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the stacks in the state bucket: %w", err)
	}
	stacks, err := sharding.FromState(rows, o.Config.StackRegion, o.Config.Stacks, o.Config.All)
	if err != nil {
		return nil, &config.InputError{Input: "stacks", Msg: err.Error()}
	}
	return stacks, nil
}

// StateList lists the stack records of the state bucket with cdkd state
// list, converted at the edge, so planning (and the reporters that show a
// plan) knows nothing of cdkd.
func StateList(ctx context.Context, x *cdkdexec.Executor) ([]sharding.Deployed, error) {
	res, err := x.Run(ctx, x.Runner(), cdkd.StateListArgs(x.Common()))
	if err != nil {
		return nil, err
	}
	rows, err := cdkd.ClassifyStateList(res)
	if err != nil {
		return nil, err
	}
	out := make([]sharding.Deployed, len(rows))
	for i, row := range rows {
		out[i] = sharding.Deployed{Stack: row.StackName, Region: row.Region, Resources: row.ResourceCount}
	}
	return out, nil
}
