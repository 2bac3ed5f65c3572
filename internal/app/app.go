// Package app wires cdkd-action together: App.Run builds an Env (env.go:
// the secret session, the log, the cdkd executor, the publisher, the AWS
// edge), runs one command's Run(ctx, *Env) Outcome (diff.go, drift.go,
// deploy.go, plan.go, aggregate.go), and turns its Outcome into the exit
// code and the failure outputs (outcome.go). It holds no domain logic of
// its own; each step lives in the package named after it.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// Deps are the edges the app talks to, injected so tests can use fakes.
type Deps struct {
	// GitHub builds the API client; nil means github.NewClient.
	GitHub func(token, apiURL string, log *slog.Logger) (github.API, error)
	// AWS builds the state reader and secret resolver; nil means the SDK's.
	AWS func(ctx context.Context, s awsx.Settings) (discover.Deps, error)
	// Objects builds the store of the action's own objects in the state
	// bucket (fingerprints); nil means the SDK's S3 client.
	Objects func(ctx context.Context, s awsx.Settings, bucket string) (fingerprint.ObjectStore, error)
	// BucketProbe builds the clients that find cdkd's default state
	// bucket when none is named (STS for the account, S3 to see which
	// default name exists); nil means the SDK's.
	BucketProbe func(ctx context.Context, s awsx.Settings) (awsx.BucketProbeAPI, error)
	// FingerprintParams are the Argon2id parameters of new fingerprints;
	// zero means fingerprint.DefaultParams. In-process end-to-end tests
	// make them cheap here instead of through a global.
	FingerprintParams fingerprint.Params
	// CdkdVersionTimeout bounds `cdkd --version`; zero means
	// cdkd.VersionTimeout. The real-cdkd end-to-end tests raise it: on a
	// shared CI machine Node can take longer than that to start.
	CdkdVersionTimeout time.Duration
	// CdkdKillGrace replaces how long cdkd gets after SIGINT before it is
	// killed (cdkd.DefaultKillGrace, or deployKillGrace for a deploy);
	// zero keeps them. End-to-end tests shorten it: their stubs either exit
	// at once on SIGINT or ignore it, so the wait proves nothing more.
	CdkdKillGrace time.Duration
	// ReportFiles is where the report JSON is written; nil is the OS's
	// file system. Tests inject a failing one (a full disk).
	ReportFiles publish.Files
}

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
	defer env.out.Close()
	env.earlyMasks()
	code := env.finish(env.run(ctx))
	env.writeOutputs()
	env.finishLocal()
	if len(env.lostFiles) > 0 && code == ExitOK {
		// The file named on the command line was the product: a run whose
		// report is lost did not succeed (the error line said why).
		code = ExitBadInput
	}
	return code
}

// command is one of cdkd-action's commands: it runs in the Env and says
// how it ended; Env.finish reports that.
type command interface {
	Run(ctx context.Context, env *Env) Outcome
}

// commands maps the command input to its command.
var commands = map[config.Command]command{
	config.CommandDiff:      diffCommand{},
	config.CommandDrift:     driftCommand{},
	config.CommandDeploy:    deployCommand{},
	config.CommandVerify:    verifyCommand{},
	config.CommandPlan:      planCommand{},
	config.CommandAggregate: aggregateCommand{},
}

// run loads the inputs, finds the secrets, connects the edges and runs the
// command.
func (r *Env) run(ctx context.Context) Outcome {
	cfg, err := config.LoadIn(r.app.Dir, r.app.Getenv, r.app.Args)
	if err == nil {
		err = checkFingerprintKey(cfg)
	}
	if err != nil {
		return failed(ReasonBadInput, err)
	}
	r.cfg = cfg
	if r.gh, err = ghctx.Load(r.app.Getenv); err != nil {
		return failed(ReasonBadInput, err)
	}
	r.local = cfg.Local || !r.gh.Actions
	if err := r.runnerFiles(); err != nil {
		return failed(ReasonBadInput, err)
	}
	if r.gh.WorkflowRun != nil && cfg.Command == config.CommandDiff && cfg.BaseApp == "" {
		// A workflow_run diff reads what a pull request's run produced:
		// its author must not decide what is secret.
		return failed(ReasonBadInput, &config.InputError{Input: "base-app", Msg: "a diff in a workflow_run job reads an assembly the pull request's author controls; expected the base branch's synthesized cloud assembly, so that secret positions come from it (see docs/forks.md)"})
	}

	if err := r.requireRegion(ctx); err != nil {
		return failed(ReasonBadInput, err)
	}
	if err := r.verifyEvent(); err != nil {
		return failed(ReasonBadInput, err)
	}
	if cfg.FromJSON != "" {
		r.fromJSON() // a diff in it decodes while the assembly loads
	}
	if err := r.discover(ctx); err != nil {
		return failed(ReasonBadInput, err)
	}
	if !r.local {
		r.connectGitHub()
		if o, ok := r.runPullRequest(ctx); !ok {
			return o
		}
	}
	r.warnInputs()
	if cfg.FromJSON != "" {
		if o, ok := r.fromReport(); ok {
			return o
		}
	}
	cmd, ok := commands[cfg.Command]
	if !ok {
		return failed(ReasonBadInput, fmt.Errorf("input command: %q is not supported", cfg.Command))
	}
	if r.needsCdkd() {
		if err := r.locateCdkd(ctx); err != nil {
			return failed(ReasonBadInput, err)
		}
	}
	return cmd.Run(ctx, r)
}

// runPullRequest finds, in a workflow_run job, the pull request the
// triggering run ran for: GitHub leaves the event's pull_requests empty
// for a fork, so the open pull requests from the event's head repository
// and branch are listed, and the one whose head is the event's commit and
// whose base is this repository is kept. Nothing the triggering run
// produced takes part. ok is false when the listing failed.
func (r *Env) runPullRequest(ctx context.Context) (Outcome, bool) {
	run := r.gh.WorkflowRun
	if run == nil || r.gh.PR != nil || r.api == nil || (run.Event != "pull_request" && run.Event != "pull_request_target") {
		return succeeded(), true
	}
	prs, err := r.api.OpenPullRequestsFromHead(ctx, r.gh.Owner, r.gh.Repo, run.HeadOwner, run.HeadBranch)
	if err != nil {
		return failed(ReasonAPIFailed, fmt.Errorf("find the pull request of the workflow run: %w", err)), false
	}
	pr, ok := github.PullRequestForRun(prs, run.HeadSHA, r.gh.Repository())
	if !ok {
		r.runner.Warning(fmt.Sprintf("no open pull request from %s:%s has head %s: the report goes to the check run and the job summary only",
			run.HeadOwner, run.HeadBranch, run.HeadSHA))
		return succeeded(), true
	}
	r.gh.PR = &ghctx.PullRequest{Number: pr.Number, HeadSHA: pr.HeadSHA, BaseRef: pr.BaseRef, Labels: pr.Labels,
		Fork: !strings.EqualFold(pr.HeadRepo, pr.BaseRepo)}
	r.runner.Info(fmt.Sprintf("workflow run for pull request #%d (head %s)", pr.Number, pr.HeadSHA))
	return succeeded(), true
}

// runnerFiles refuses a run that says it is in a runner (GITHUB_ACTIONS
// is true, no --local) without the files every runner gives a step: the
// report and the outputs would go nowhere.
func (r *Env) runnerFiles() error {
	if r.local {
		return nil
	}
	var missing []string
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		if r.app.Getenv(name) == "" {
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

// needsCdkd: a saved diff or drift, a plan for diff and an aggregate read
// files only.
func (r *Env) needsCdkd() bool {
	switch r.cfg.Command {
	case config.CommandDiff, config.CommandDrift:
		return r.cfg.FromJSON == ""
	case config.CommandPlan:
		return r.cfg.For == config.CommandDrift
	case config.CommandAggregate:
		return false
	}
	return true
}
