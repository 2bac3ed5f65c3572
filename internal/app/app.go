// Package app wires cdkd-action together: App.Run builds the per-run
// context, an Env (env.go: the inputs, the GitHub context, and the parts
// a run talks through, each a named field: the log, the secret session,
// the cdkd executor, the publisher's channels, the AWS edge), dispatches
// to one command's package (internal/app/diff, drift, deploy, verify,
// plan, aggregate), handing it the parts it uses by name (commands.go),
// and turns the outcome.Outcome it returns into the exit code and the
// failure outputs (Env.finish). It holds no domain logic of its own; each
// step lives in the package named after it.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// Deps are the edges the app talks to, injected so tests can use fakes
// (see parts.Deps).
type Deps = parts.Deps

// App is one invocation of the action.
type App struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Args   []string
	Deps   Deps
	// Version is the action's release, stamped at build time ("" is dev).
	Version string

	// Environ lists the environment as NAME=value, so that every credential
	// the runner hands the container is masked by its name (see
	// discover.CredentialNames); nil means only the names Getenv is asked for.
	Environ func() []string

	// Dir is the directory relative inputs (working-directory, from-json,
	// --output, --outputs-file) are taken against; "" is the process's
	// working directory. It lets an App run in-process without a chdir.
	Dir string
}

// environ is the environment cdkd and npm inherit: the App's own, so that
// nothing reaches them from the process that the App was not given; nil
// (no Environ) means the process's.
func (a *App) environ() []string {
	if a == nil || a.Environ == nil {
		return nil
	}
	return a.Environ()
}

// Run executes the action and returns its exit code.
func (a *App) Run(ctx context.Context) ExitCode {
	if code, done := a.meta(ctx); done {
		return code
	}
	env := a.newEnv()
	defer env.parts.Out.Close()
	env.parts.Secrets.EarlyMasks()
	code := env.finish(env.run(ctx))
	env.parts.Channels.WriteOutputs()
	env.finishLocal()
	if len(env.parts.Channels.LostFiles()) > 0 && code == ExitOK {
		// The file named on the command line was the product: a run whose
		// report is lost did not succeed (the error line said why).
		code = ExitBadInput
	}
	return code
}

// run loads the inputs, finds the secrets, connects the edges and runs the
// command.
func (e *Env) run(ctx context.Context) outcome.Outcome {
	cfg, err := config.LoadIn(Commands(), e.app.Dir, e.app.Getenv, e.app.Args)
	if err == nil {
		err = checkFingerprintKey(cfg)
	}
	if err != nil {
		// The refusal's failure-reason still reaches --outputs-file.
		e.cfg.CLI.OutputsFile = config.OutputsFileIn(e.app.Dir, e.app.Args)
		return outcome.Failed(reason.BadInput, err)
	}
	e.cfg = cfg
	if e.gh, err = ghctx.Load(e.app.Getenv); err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	e.setLocal(cfg.Local || !e.gh.Actions)
	if err := e.runnerFiles(); err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	if e.gh.WorkflowRun != nil && cfg.Command == config.CommandDiff && cfg.BaseApp == "" {
		// A workflow_run diff reads what a pull request's run produced:
		// its author must not decide what is secret.
		return outcome.Failed(reason.BadInput, &config.InputError{Input: "base-app", Msg: "a diff in a workflow_run job reads an assembly the pull request's author controls; expected the base branch's synthesized cloud assembly, so that secret positions come from it (see docs/forks.md)"})
	}

	if err := e.requireRegion(ctx); err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	cmd, ok := lookup(cfg.Command)
	if !ok {
		return outcome.Failed(reason.BadInput, fmt.Errorf("input command: %q is not supported", cfg.Command))
	}
	if cmd.check != nil {
		if err := cmd.check(cfg, e.gh); err != nil {
			return outcome.Failed(reason.BadInput, err)
		}
	}
	if cfg.FromJSON != "" {
		e.parts.FromJSON() // a diff in it decodes while the assembly loads
	}
	if err := e.parts.Secrets.Discover(ctx); err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	if err := e.stacksInAssembly(); err != nil {
		return outcome.Failed(reason.BadInput, err)
	}
	if !e.local {
		e.parts.Channels.Connect(e.app.Deps.GitHub, e.parts.Log)
		if o, ok := e.runPullRequest(ctx); !ok {
			return o
		}
	}
	e.warnInputs()
	e.warnNewcomer()
	if cfg.FromJSON != "" {
		done, err := e.parts.FromJSON().Render(cfg.Command, cfg.Stacks, e.parts.Secrets.Set, e.parts.Channels)
		if err != nil {
			return outcome.Failed(reason.BadInput, err)
		}
		if done {
			return outcome.Succeeded()
		}
	}
	if e.needsCdkd() {
		if err := e.parts.Cdkd.Locate(ctx); err != nil {
			return outcome.Failed(reason.BadInput, err)
		}
	}
	return cmd.run(ctx, e)
}

// runPullRequest finds, in a workflow_run job, the pull request the
// triggering run ran for: GitHub leaves the event's pull_requests empty
// for a fork, so the open pull requests from the event's head repository
// and branch are listed, and the one whose head is the event's commit and
// whose base is this repository is kept. Nothing the triggering run
// produced takes part. ok is false when the listing failed.
func (e *Env) runPullRequest(ctx context.Context) (outcome.Outcome, bool) {
	run := e.gh.WorkflowRun
	if run == nil || e.gh.PR != nil || e.parts.Channels.API == nil || (run.Event != "pull_request" && run.Event != "pull_request_target") {
		return outcome.Succeeded(), true
	}
	prs, err := e.parts.Channels.API.OpenPullRequestsFromHead(ctx, e.gh.Owner, e.gh.Repo, run.HeadOwner, run.HeadBranch)
	if err != nil {
		return outcome.Failed(reason.APIFailed, fmt.Errorf("find the pull request of the workflow run: %w", err)), false
	}
	pr, ok := github.PullRequestForRun(prs, run.HeadSHA, e.gh.Repository())
	if !ok {
		e.parts.Runner.Warning(fmt.Sprintf("no open pull request from %s:%s has head %s: the report goes to the check run and the job summary only",
			run.HeadOwner, run.HeadBranch, run.HeadSHA))
		return outcome.Succeeded(), true
	}
	e.gh.PR = &pr
	e.parts.Runner.Info(fmt.Sprintf("workflow run for pull request #%d (head %s)", pr.Number, pr.HeadSHA))
	return outcome.Succeeded(), true
}

// runnerFiles refuses a run that says it is in a runner (GITHUB_ACTIONS
// is true, no --local) without the files every runner gives a step: the
// report and the outputs would go nowhere.
func (e *Env) runnerFiles() error {
	if e.local {
		return nil
	}
	var missing []string
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		if e.app.Getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	verb := "is"
	if len(missing) > 1 {
		verb = "are"
	}
	return &config.InputError{Input: "GITHUB_ACTIONS", Msg: fmt.Sprintf("it is true but %s %s not set, so the outputs and the job summary would go nowhere: this is not a GitHub Actions step; pass --local to print the report here", strings.Join(missing, " and "), verb)}
}

// needsCdkd: the command runs cdkd (see the table's cdkd).
func (e *Env) needsCdkd() bool {
	cmd, ok := lookup(e.cfg.Command)
	return !ok || cmd.cdkd(e.cfg)
}

// requireRegion refuses, before anything runs, a run whose cdkd would fail
// with "Region is missing": no region is known. A run that does not run
// cdkd (a saved report rendered, a plan for diff, an aggregate) needs
// none.
func (e *Env) requireRegion(ctx context.Context) error {
	if !e.needsCdkd() || awsx.KnownRegion(ctx, e.app.Getenv) != "" {
		return nil
	}
	if e.local {
		return errors.New("no AWS region is known, and cdkd needs one: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in the AWS profile)")
	}
	return errors.New("no AWS region is known, and cdkd needs one: set aws-region on the step that configures AWS credentials (aws-actions/configure-aws-credentials), or AWS_REGION in the job's env")
}

// stacksInAssembly refuses, before cdkd runs, a stacks pattern that
// matches no stack of the cloud assembly app names: cdkd would drop it
// without a word when another pattern matches, and fail (not say "bad
// input") when none does. A saved report is matched by its own rule
// (fromjson), a drift against the state (package drift); with an app
// command there is no list before cdkd synthesizes, and warnInputs says so.
func (e *Env) stacksInAssembly() error {
	asm := e.parts.Secrets.Assembly
	if asm == nil || len(e.cfg.Stacks) == 0 || e.cfg.FromJSON != "" {
		return nil
	}
	if c, ok := lookup(e.cfg.Command); !ok || c.assemblyStacks == nil || !c.assemblyStacks(e.cfg) {
		return nil
	}
	return config.UnmatchedStacks(asm.Unmatched(e.cfg.Stacks), "the cloud assembly", asm.TopNames())
}
