package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/plan"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// planCommand splits the stacks a diff or drift would cover into shards
// for a matrix of jobs: the `matrix` and `shard-count` outputs, and the
// plan in the job summary.
type planCommand struct{}

func (planCommand) Run(ctx context.Context, r *Env) Outcome {
	return planRun{
		cfg: r.cfg, asm: r.asm, deployed: r.deployedStacks,
		warn: func(msg string) { r.runner.Warning(msg) },
		publish: func(ctx context.Context, p *publish.Publication) error {
			return r.pub().Publish(ctx, p, r.targets()...)
		},
	}.run(ctx)
}

// planRun is what the plan command uses of Env, named, so that a test
// hands it the stacks and reads what it publishes without a step around it.
type planRun struct {
	cfg config.Config
	// asm is the cloud assembly, nil when app is not one.
	asm *assembly.Assembly
	// deployed lists the stack records of the state bucket (cdkd state list).
	deployed func(ctx context.Context) ([]plan.Deployed, error)
	warn     func(msg string)
	// publish writes the plan to the job summary and the outputs (stdout in
	// a local run): a plan posts nothing through the API.
	publish func(ctx context.Context, p *publish.Publication) error
}

func (r planRun) run(ctx context.Context) Outcome {
	stacks, err := r.stacks(ctx)
	if err != nil {
		if config.IsInputError(err) {
			return failed(ReasonBadInput, err)
		}
		return failed(cdkdReason(err, ReasonCdkdFailed), err)
	}
	n := r.cfg.Shards
	if n == 0 {
		total := 0
		for _, s := range stacks {
			total += s.Resources
		}
		n = plan.Auto(total, len(stacks))
	}
	m := plan.Split(stacks, n)
	if r.cfg.Shards > len(m.Shard) {
		// Never fewer shards than asked without saying so.
		r.warn(fmt.Sprintf("shards asks for %d, but the plan has %d: a shard holds at least one stack (a stack and its nested stacks are never split), and there are %d", r.cfg.Shards, len(m.Shard), len(stacks)))
	}
	b, err := json.Marshal(m)
	if err != nil {
		return failed(ReasonCdkdFailed, fmt.Errorf("encode the plan: %w", err))
	}
	md := reporters.PlanMarkdown(m, string(r.cfg.For))
	p := &publish.Publication{
		Kind:    "plan",
		Render:  func(reporters.Budget) string { return md },
		Outputs: map[string]string{OutputMatrix: string(b), OutputShardCount: strconv.Itoa(len(m.Shard))},
	}
	if err := r.publish(ctx, p); err != nil {
		return failed(ReasonAPIFailed, err)
	}
	return succeeded()
}

// stacks lists the stacks to spread, with their sizes: from the cloud
// assembly for a diff (what the code will deploy), from the state bucket
// for drift (what is deployed, code or not).
func (r planRun) stacks(ctx context.Context) ([]plan.Stack, error) {
	if !r.cfg.All && len(r.cfg.Stacks) == 0 {
		return nil, &config.InputError{Input: "stacks", Msg: "expected the stacks to spread over shards, or all: true"}
	}
	if r.cfg.For == config.CommandDiff {
		if r.asm == nil {
			return nil, &config.InputError{Input: "app", Msg: fmt.Sprintf("a plan for diff reads the stacks and their sizes from a synthesized cloud assembly; expected a directory such as cdk.out, got %q", r.cfg.App)}
		}
		stacks, err := plan.FromAssembly(r.asm, r.cfg.Stacks, r.cfg.All)
		if err != nil {
			return nil, &config.InputError{Input: "stacks", Msg: err.Error()}
		}
		return stacks, nil
	}
	rows, err := r.deployed(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the stacks in the state bucket: %w", err)
	}
	stacks, err := plan.FromState(rows, r.cfg.StackRegion, r.cfg.Stacks, r.cfg.All)
	if err != nil {
		return nil, &config.InputError{Input: "stacks", Msg: err.Error()}
	}
	return stacks, nil
}

// deployedStacks lists the stack records of the state bucket with cdkd
// state list, converted at the edge, so planning (and the reporters that
// show a plan) knows nothing of cdkd.
func (r *Env) deployedStacks(ctx context.Context) ([]plan.Deployed, error) {
	res, err := r.runCdkd(ctx, r.cdkdRunner(), cdkd.StateListArgs(r.common()))
	if err != nil {
		return nil, err
	}
	rows, err := cdkd.ClassifyStateList(res)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Deployed, len(rows))
	for i, row := range rows {
		out[i] = plan.Deployed{Stack: row.StackName, Region: row.Region, Resources: row.ResourceCount}
	}
	return out, nil
}
