// Package app wires cdkd-action together: inputs, secret discovery, cdkd,
// reporters and sinks. It holds no domain logic of its own; each step lives
// in the package named after it.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/github"
	"github.com/cdkd-action/cdkd-action/internal/publish"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/secrets/discover"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
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

// Env is what every command runs in, built once by App.Run: the validated
// inputs and the GitHub context, and the four parts a command talks
// through — the secret session, the log, the cdkd executor and the
// publisher. A command is a Run(ctx, *Env) Outcome (see command); what it
// keeps for itself lives in its own type (diffRun, driftRun, deployRun).
type Env struct {
	app   *App
	cfg   config.Config
	gh    ghctx.Context
	local bool

	session
	logs
	executor
	publisher
	awsEdge
}

// session is what the run knows is secret: the Set every outgoing byte is
// redacted with, the values registered with ::add-mask::, the cloud
// assembly whose positions hide values fail closed, and the fingerprints
// of secret values.
type session struct {
	set *secrets.Set
	// masked holds what was already registered with ::add-mask::.
	masked map[string]bool
	// warned holds the discovery warnings already printed: discovery runs
	// again for an assembly found late (see lateAssembly).
	warned map[string]bool
	asm    *assembly.Assembly
	// lateTried is set once lateAssembly has looked for cdk.out.
	lateTried bool
	// held is cdkd's output held back until discovery finished (hold.go).
	held *heldOutput
	// fps holds the fingerprints of secret values (fingerprints.go).
	fps fpState
}

// logs is the step's log: every line passes the redactor.
type logs struct {
	out    *secrets.LineWriter // redacted log
	log    *slog.Logger
	runner *workflow.Runner // log commands, outputs and summary; text passes the redactor
	raw    *workflow.Runner // add-mask only: must not be redacted
}

// executor is the cdkd this run uses (see local.go and sinks.go).
type executor struct {
	// cdkd is nil with from-json.
	cdkd *cdkd.Choice
	// cleanups run when the run ends (e.g. an npm-installed cdkd).
	cleanups []func()
}

// publisher is where reports go: the GitHub API (nil in local mode or
// without a token), the step outputs and the job summary.
type publisher struct {
	api     github.API
	outputs map[string]string
	// summaryWritten tracks that every path, failures included, wrote one.
	summaryWritten bool
	// identity answers who we are, once per run (see ident).
	identity *github.Identity
	// reportBudget is the time a cancelled run's last report was given,
	// 0 while the job's own context is live.
	reportBudget time.Duration
	// reportJSON writes the report JSON; outside a workspace it keeps the
	// run's own folder.
	reportJSON *publish.ReportJSON
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

// newEnv builds the log and the secret session: every line the run prints
// passes the redactor of the Set that discovery fills.
func (a *App) newEnv() *Env {
	logOut := a.logWriter()
	set := secrets.NewSet()
	out := secrets.NewLineWriter(logOut, set)
	r := &Env{app: a}
	r.set = set
	r.outputs = map[string]string{}
	r.out = out
	r.raw = workflow.New(logOut, a.Getenv)
	r.runner = workflow.New(out, a.Getenv)
	r.runner.Redact = set.Redact
	// Outside a runner, print for a terminal: no ::commands:: at all.
	r.runner.Plain = !workflow.IsActions(a.Getenv)
	r.raw.Plain = r.runner.Plain
	r.log = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return r
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

// discover finds every secret and registers it with the runner before any
// other line is printed.
func (r *Env) discover(ctx context.Context) error {
	var loadErr error
	if dir := r.assemblyDir(); dir != "" {
		asm, err := assembly.Load(dir)
		if err != nil {
			loadErr = fmt.Errorf("input app: %s looks like a cloud assembly but could not be read: %w", r.cfg.App, err)
		}
		r.asm = asm
	}
	// Nothing is printed until every mask is registered: the warnings
	// (AWS trouble included) come after the ::add-mask:: lines, and even a
	// bad assembly registers mask-values and mask-env before the error.
	warnings := r.discoverSecrets(ctx)
	if loadErr != nil {
		return loadErr
	}
	r.warnDiscovery(warnings)
	if !r.readsAWS() {
		r.runner.Notice(notReadNote)
	}
	return nil
}

// notReadNote says, in a local run without resolve-secrets, that cdkd's
// text was not masked against what its state holds.
const notReadNote = "cdkd's output is not masked against its state: resolve-secrets is off in this local run, so nothing was read from the state bucket, " +
	"Secrets Manager or SSM, and only mask-values, mask-env and the cloud assembly's NoEcho defaults are masked. Pass --resolve-secrets to mask what the state holds."

// readsAWS reports whether discovery may read the state bucket, Secrets
// Manager and SSM: a local run reads them only when resolve-secrets asks.
func (r *Env) readsAWS() bool {
	return r.offlineAWS() == ""
}

// discoverSecrets adds to r.set what the inputs and r.asm (nil: the inputs
// alone) make secret, and registers every value with the runner. It prints
// nothing: it returns the warnings for the caller to print after the masks.
func (r *Env) discoverSecrets(ctx context.Context) []string {
	cfg := r.cfg
	in := discover.Input{
		Assembly:       r.asm,
		Stacks:         cfg.Stacks,
		DefaultRegion:  r.region("", ""), // drift reads the stacks of stack-region
		StateBucket:    r.stateBucket(),
		StatePrefix:    cfg.StatePrefix,
		MaskValues:     cfg.MaskValues,
		MaskEnv:        cfg.MaskEnv,
		Getenv:         r.app.Getenv,
		ResolveSecrets: cfg.ResolveSecrets,
	}
	var deps discover.Deps
	var warnings []string
	if r.asm != nil && len(r.asm.Stacks) > 0 && r.readsAWS() {
		var warning string
		deps, warning = r.awsDeps(ctx)
		if warning != "" {
			warnings = append(warnings, warning)
		}
	}
	warnings = append(warnings, discover.Discover(ctx, r.set, in, deps)...)
	r.registerMasks()
	return warnings
}

// warnDiscovery prints each discovery warning not printed yet.
func (r *Env) warnDiscovery(warnings []string) {
	if r.warned == nil {
		r.warned = map[string]bool{}
	}
	for _, w := range warnings {
		if !r.warned[w] {
			r.warned[w] = true
			r.runner.Warning(w)
		}
	}
}

// earlyMasks registers, before the inputs are even validated, the secrets
// the environment already names: the token, AWS credentials, and the raw
// mask-values and mask-env inputs. An input error may quote an input, and
// nothing may print a secret before it is masked.
func (r *Env) earlyMasks() {
	getenv := r.app.Getenv
	for _, name := range credentialNames(r.app.Environ) {
		if v := getenv(name); credentialValue(name, v) {
			r.set.Add(v, "environment variable "+name)
		}
		// The fingerprint key's input name ends in -KEY, not _KEY.
		r.set.Add(getenv("INPUT_FINGERPRINT-KEY"), "fingerprint-key")
	}
	for i, line := range strings.Split(getenv("INPUT_MASK-VALUES"), "\n") {
		r.set.Add(strings.TrimRight(line, "\r"), fmt.Sprintf("mask-values line %d", i+1))
	}
	for _, name := range strings.Fields(getenv("INPUT_MASK-ENV")) {
		r.set.Add(getenv(name), "mask-env "+name)
	}
	r.registerMasks()
}

// registerMasks emits ::add-mask:: for every value not yet registered. Only
// a runner consumes it; printed to a terminal it would show the very value
// it names, so locally the redactor alone masks.
func (r *Env) registerMasks() {
	if !workflow.IsActions(r.app.Getenv) {
		return
	}
	if r.masked == nil {
		r.masked = map[string]bool{}
	}
	for _, m := range r.set.MaskCommands() {
		if !r.masked[m] {
			r.masked[m] = true
			r.raw.AddMask(m)
		}
	}
}

// assemblyDir returns the app input when it names a synthesized cloud
// assembly directory.
func (r *Env) assemblyDir() string {
	if r.cfg.App == "" {
		return ""
	}
	dir := r.cfg.App
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.cfg.WorkingDirectory, dir)
	}
	if assembly.IsAssembly(dir) {
		return dir
	}
	return ""
}

// awsDeps builds the state reader and resolver. It returns its warning
// instead of printing it, so that discovery prints it only after the masks
// are registered.
func (r *Env) awsDeps(ctx context.Context) (discover.Deps, string) {
	if why := r.offlineAWS(); why != "" {
		return discover.Deps{}, why
	}
	deps, err := r.awsClients(ctx)
	if err != nil {
		return discover.Deps{}, fmt.Sprintf("AWS is not configured, so values stored in state and secret references were not read for masking: %v", err)
	}
	deps.Resolver = r.recordRefs(deps.Resolver) // their values are fingerprinted later
	return deps, ""
}

// stateBucket follows cdkd's own order: the input, CDKD_STATE_BUCKET, then
// cdk.json's context.cdkd.stateBucket.
func (r *Env) stateBucket() string {
	if r.cfg.StateBucket != "" {
		return r.cfg.StateBucket
	}
	if b := r.app.Getenv("CDKD_STATE_BUCKET"); b != "" {
		return b
	}
	return cdkJSONStateBucket(filepath.Join(r.cfg.WorkingDirectory, "cdk.json"))
}

func (r *Env) connectGitHub() {
	if r.cfg.GitHubToken == "" {
		r.runner.Warning("github-token is empty: the report goes to the job summary only")
		return
	}
	build := r.app.Deps.GitHub
	if build == nil {
		build = func(token, apiURL string, log *slog.Logger) (github.API, error) {
			return github.NewClient(token, apiURL, github.WithLogger(log))
		}
	}
	api, err := build(r.cfg.GitHubToken, r.gh.APIURL, r.log)
	if err != nil {
		r.runner.Warning(fmt.Sprintf("cannot use the GitHub API at %s: %v", r.gh.APIURL, err))
		return
	}
	r.api = redactingAPI{api: api, set: r.set}
}

// setOutput records an output; all are written at the end, redacted.
func (r *Env) setOutput(name, value string) { r.outputs[name] = value }

func (r *Env) writeOutputs() {
	if _, ok := r.outputs[OutputFailureReason]; !ok {
		r.outputs[OutputFailureReason] = ""
	}
	for _, name := range slices.Sorted(maps.Keys(r.outputs)) {
		if err := r.runner.SetOutput(name, r.set.Redact(r.outputs[name])); err != nil {
			r.runner.Error(fmt.Sprintf("write output %s: %v", name, err))
		}
	}
}

// summary appends to the job summary, redacted.
func (r *Env) summary(markdown string) {
	r.summaryTarget().Write(r.pub(), markdown)
}
