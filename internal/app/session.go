package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// The secret session: everything the run learns is secret, discovered
// before anything prints and registered with ::add-mask::, and the positions
// the redaction stage places values by.

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
	if r.cfg.BaseApp != "" {
		base, err := assembly.Load(r.cfg.InWorkingDirectory(r.cfg.BaseApp))
		if err != nil && loadErr == nil {
			loadErr = fmt.Errorf("input base-app: %s could not be read as a cloud assembly: %w", r.cfg.BaseApp, err)
		}
		r.baseAsm = base
	}
	// Nothing is printed until every mask is registered: the warnings
	// (AWS trouble included) come after the ::add-mask:: lines, and even a
	// bad assembly registers mask-values and mask-env before the error.
	warnings := r.discoverSecrets(ctx)
	if loadErr != nil {
		return loadErr
	}
	r.warnDiscovery(warnings)
	r.sayStateBucket()
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
	asm := r.secretAssembly()
	in := discover.Input{
		Assembly:       asm,
		Stacks:         cfg.Stacks,
		DefaultRegion:  r.defaultRegion(), // drift reads the stacks of stack-region
		StateBucket:    r.stateBucket(ctx),
		StatePrefix:    cfg.StatePrefix,
		MaskValues:     cfg.MaskValues,
		MaskEnv:        cfg.MaskEnv,
		Getenv:         r.app.Getenv,
		ResolveSecrets: cfg.ResolveSecrets,
	}
	var deps discover.Deps
	var warnings []string
	if asm != nil && len(asm.Stacks) > 0 && r.readsAWS() {
		var warning string
		deps, warning = r.awsDeps(ctx)
		if warning != "" {
			warnings = append(warnings, warning)
		}
	}
	warnings = append(warnings, discover.Discover(ctx, r.set, in, deps)...)
	if r.keysMasks() {
		// The key is a secret too: read (or created) now, so that its mask
		// is registered with the others, before anything is printed.
		r.fingerprintKey(ctx)
	}
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
	for _, name := range discover.CredentialNames(r.app.Environ) {
		if v := getenv(name); discover.CredentialValue(name, v) {
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

// positions gives the redactor the assembly's secret positions, if any.
func (r *Env) positions() redact.Positions {
	if asm := r.secretAssembly(); asm != nil {
		return asm
	}
	return nil
}

// secretAssembly is the assembly secret positions come from: base-app's
// when given (app is then the pull request's, and its author must not
// decide what is secret: a fork that drops NoEcho would otherwise print
// the stored value cdkd 0.284 shows), else app's.
func (r *Env) secretAssembly() *assembly.Assembly {
	if r.cfg.BaseApp != "" {
		return r.baseAsm
	}
	return r.asm
}

// redactLines redacts cdkd's lines before they reach a report (see
// redact.Lines).
func (r *Env) redactLines(lines []string) []string { return redact.Lines(r.set, lines) }

// offlineAWS says why the action makes no AWS call of its own: a local run
// without --resolve-secrets. Empty when it may.
func (r *Env) offlineAWS() string {
	if !r.local || r.cfg.ResolveSecrets {
		return ""
	}
	return "this local run made no AWS call of its own, so values stored in state and secret references were not read for masking; pass --resolve-secrets to read them"
}
