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

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// ExitCode is the action's exit status; each value has one meaning.
type ExitCode int

const (
	// ExitOK: the run worked (changes or drift may exist and were reported).
	ExitOK ExitCode = 0
	// ExitChanges: changes or drift found and the inputs ask to fail on them.
	ExitChanges ExitCode = 1
	// ExitBadInput: an input or the environment is wrong; nothing ran.
	ExitBadInput ExitCode = 2
	// ExitFailure: cdkd or an API failed.
	ExitFailure ExitCode = 3
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
	// FingerprintParams are the Argon2id parameters of new fingerprints;
	// zero means fingerprint.DefaultParams. In-process end-to-end tests
	// make them cheap here instead of through a global.
	FingerprintParams fingerprint.Params
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
	// credentialNames); nil means only the names Getenv is asked for.
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

	if err := r.discover(ctx); err != nil {
		return failed(ReasonBadInput, err)
	}
	if !r.local {
		r.connectGitHub()
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
