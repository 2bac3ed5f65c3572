// Package session is a run's secret session: everything the run learns is
// secret, discovered before anything prints and registered with
// ::add-mask::, the Set every outgoing byte is redacted with, and the cloud
// assemblies whose positions the redaction stage places values by.
package session

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cdkd-action/cdkd-action/internal/app/awsedge"
	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/discover"
	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Session is what the run knows is secret: the Set every outgoing byte is
// redacted with, the values registered with ::add-mask::, the cloud
// assembly whose positions hide values fail closed, and the values secret
// references resolved to (to be fingerprinted).
type Session struct {
	// Set redacts every outgoing byte.
	Set *secrets.Set
	// Assembly is the cloud assembly of the app input, or the one cdkd
	// synthesized (LateAssembly); nil without one.
	Assembly *assembly.Assembly
	// BaseAssembly is the base-app input's assembly: where secret
	// positions come from when Assembly is one a pull request's author
	// controls.
	BaseAssembly *assembly.Assembly

	// Config is the run's inputs; nil until they are loaded.
	Config *config.Config
	AWS    *awsedge.Edge
	Getenv func(string) string
	// Environ lists the environment as NAME=value (see
	// discover.CredentialNames); nil means only the names Getenv is
	// asked for.
	Environ func() []string
	// Raw registers masks: it must not be redacted.
	Raw *workflow.Runner
	// Log is the step's log; its text passes the redactor.
	Log *workflow.Runner
	// LearnKey reads (or creates) the fingerprint key when the command
	// keys its hidden-value tokens, so that the key is masked
	// with the others (nil: none).
	LearnKey func(ctx context.Context)

	// masked holds what was already registered with ::add-mask::.
	masked map[string]bool
	// warned holds the discovery warnings already printed: discovery runs
	// again for an assembly found late (see LateAssembly).
	warned map[string]bool
	// lateTried is set once LateAssembly has looked for cdk.out.
	lateTried bool
	// refs remembers what secret references resolved to.
	refs *recordingResolver
}

// Discover finds every secret and registers it with the runner before any
// other line is printed.
func (s *Session) Discover(ctx context.Context) error {
	var loadErr error
	cfg := s.Config
	if dir := s.AssemblyDir(); dir != "" {
		asm, err := assembly.Load(dir)
		if err != nil {
			loadErr = fmt.Errorf("input app: %s looks like a cloud assembly but could not be read: %w", cfg.App, err)
		}
		s.Assembly = asm
	}
	if cfg.BaseApp != "" {
		base, err := assembly.Load(cfg.InWorkingDirectory(cfg.BaseApp))
		if err != nil && loadErr == nil {
			loadErr = fmt.Errorf("input base-app: %s could not be read as a cloud assembly: %w", cfg.BaseApp, err)
		}
		s.BaseAssembly = base
	}
	// Nothing is printed until every mask is registered: the warnings
	// (AWS trouble included) come after the ::add-mask:: lines, and even a
	// bad assembly registers mask-values and mask-env before the error.
	warnings := s.discoverSecrets(ctx)
	if loadErr != nil {
		return loadErr
	}
	s.WarnDiscovery(warnings)
	s.AWS.SayStateBucket()
	if !s.AWS.ReadsAWS() {
		s.Log.Notice(notReadNote)
	}
	return nil
}

// notReadNote says, in a local run without resolve-secrets, that cdkd's
// text was not redacted against what its state holds.
const notReadNote = "cdkd's output is not redacted against its state: resolve-secrets is off in this local run, so nothing was read from the state bucket, " +
	"Secrets Manager or SSM, and only mask-values, mask-env and the cloud assembly's NoEcho defaults are redacted. Pass --resolve-secrets to redact what the state holds."

// discoverSecrets adds to the Set what the inputs and the secret assembly
// (nil: the inputs alone) make secret, and registers every value with the
// runner. It prints nothing: it returns the warnings for the caller to
// print after the masks.
func (s *Session) discoverSecrets(ctx context.Context) []string {
	cfg := s.Config
	asm := s.SecretAssembly()
	in := discover.Input{
		Assembly:       asm,
		Stacks:         cfg.Stacks,
		DefaultRegion:  s.AWS.DefaultRegion(), // drift reads the stacks of stack-region
		StateBucket:    s.AWS.StateBucket(ctx),
		NoBucketSaid:   s.AWS.NoBucketSaid(),
		StatePrefix:    cfg.StatePrefix,
		MaskValues:     cfg.MaskValues,
		MaskEnv:        cfg.MaskEnv,
		Getenv:         s.Getenv,
		ResolveSecrets: cfg.ResolveSecrets,
	}
	var deps discover.Deps
	var warnings []string
	if asm != nil && len(asm.Stacks) > 0 && s.AWS.ReadsAWS() {
		var warning string
		deps, warning = s.awsDeps(ctx)
		if warning != "" {
			warnings = append(warnings, warning)
		}
	}
	// What the templates write in public is never a secret of its own:
	// the Set is told before it learns anything (see secrets.Set.Public).
	s.Set.Public(asm.PublicLiterals())
	warnings = append(warnings, discover.Discover(ctx, s.Set, in, deps)...)
	if s.LearnKey != nil {
		// The key is a secret too: read (or created) now, so that its mask
		// is registered with the others, before anything is printed.
		s.LearnKey(ctx)
	}
	s.RegisterMasks()
	return warnings
}

// WarnDiscovery prints each discovery warning not printed yet.
func (s *Session) WarnDiscovery(warnings []string) {
	if s.warned == nil {
		s.warned = map[string]bool{}
	}
	for _, w := range warnings {
		if !s.warned[w] {
			s.warned[w] = true
			s.Log.Warning(w)
		}
	}
}

// EarlyMasks registers, before the inputs are even validated, the secrets
// the environment already names: the token, AWS credentials, and the raw
// mask-values and mask-env inputs. An input error may quote an input, and
// nothing may print a secret before it is masked.
func (s *Session) EarlyMasks() {
	getenv := s.Getenv
	for _, name := range discover.CredentialNames(s.Environ) {
		if v := getenv(name); discover.CredentialValue(name, v) {
			s.Set.Add(v, "environment variable "+name)
		}
		// The fingerprint key's input name ends in -KEY, not _KEY.
		s.Set.Add(getenv("INPUT_FINGERPRINT-KEY"), "fingerprint-key")
	}
	for i, line := range strings.Split(getenv("INPUT_MASK-VALUES"), "\n") {
		s.Set.Add(strings.TrimRight(line, "\r"), fmt.Sprintf("mask-values line %d", i+1))
	}
	for _, name := range strings.Fields(getenv("INPUT_MASK-ENV")) {
		s.Set.Add(getenv(name), "mask-env "+name)
	}
	s.RegisterMasks()
}

// RegisterMasks emits ::add-mask:: for every value not yet registered. Only
// a runner consumes it; printed to a terminal it would show the very value
// it names, so locally the redactor alone hides it.
func (s *Session) RegisterMasks() {
	if !workflow.IsActions(s.Getenv) {
		return
	}
	if s.masked == nil {
		s.masked = map[string]bool{}
	}
	for _, m := range s.Set.MaskCommands() {
		if !s.masked[m] {
			s.masked[m] = true
			s.Raw.AddMask(m)
		}
	}
}

// AssemblyDir returns the app input when it names a synthesized cloud
// assembly directory.
func (s *Session) AssemblyDir() string {
	if s.Config.App == "" {
		return ""
	}
	dir := s.Config.App
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.Config.WorkingDirectory, dir)
	}
	if assembly.IsAssembly(dir) {
		return dir
	}
	return ""
}

// awsDeps builds the state reader and resolver. It returns its warning
// instead of printing it, so that discovery prints it only after the masks
// are registered.
func (s *Session) awsDeps(ctx context.Context) (discover.Deps, string) {
	if why := s.AWS.Offline(); why != "" {
		return discover.Deps{}, why
	}
	deps, err := s.AWS.Clients(ctx)
	if err != nil {
		return discover.Deps{}, fmt.Sprintf("AWS is not configured, so values stored in state and secret references were not read for masking: %v", err)
	}
	deps.Resolver = s.RecordRefs(deps.Resolver) // their values are fingerprinted later
	return deps, ""
}

// Positions gives the redactor the assembly's secret positions, if any.
func (s *Session) Positions() redact.Positions {
	if asm := s.SecretAssembly(); asm != nil {
		return asm
	}
	return nil
}

// SecretAssembly is the assembly secret positions come from: base-app's
// when given (app is then the pull request's, and its author must not
// decide what is secret: a fork that drops NoEcho would otherwise print
// the stored value cdkd 0.284 shows), else app's.
func (s *Session) SecretAssembly() *assembly.Assembly {
	if s.Config.BaseApp != "" {
		return s.BaseAssembly
	}
	return s.Assembly
}

// RedactLines redacts cdkd's lines before they reach a report (see
// redact.Lines).
func (s *Session) RedactLines(lines []string) []string { return redact.Lines(s.Set, lines) }

// Region answers where a stack of the change set lives: the region cdkd or
// the change set named, else the assembly's for the stack, else
// AWS_REGION. (awsedge.Edge.DefaultRegion answers where a run reads stacks
// that name no region.)
func (s *Session) Region(stack, region string) string {
	if region == "" && stack != "" && s.Assembly != nil {
		if st, ok := s.Assembly.Stack(stack); ok {
			region = st.Region
		}
	}
	return cmp.Or(region, s.Getenv("AWS_REGION"))
}

// recordingResolver remembers what each secret reference resolved to, so
// the value can be fingerprinted without a second read from AWS.
type recordingResolver struct {
	inner  discover.Resolver
	mu     sync.Mutex
	values map[string]string // by the reference's spelling
}

func (rr *recordingResolver) Resolve(ctx context.Context, ref dynref.Ref) (string, bool, error) {
	v, secret, err := rr.inner.Resolve(ctx, ref)
	if err == nil && secret {
		rr.mu.Lock()
		rr.values[ref.Raw] = v
		rr.mu.Unlock()
	}
	return v, secret, err
}

// RefValue is the value the secret reference raw (as the template spells
// it) resolved to during discovery, if it did.
func (s *Session) RefValue(raw string) (string, bool) {
	rr := s.refs
	if rr == nil {
		return "", false
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	v, ok := rr.values[raw]
	return v, ok
}

// RecordRefs wraps discovery's resolver so resolved values can be
// fingerprinted later.
func (s *Session) RecordRefs(inner discover.Resolver) discover.Resolver {
	if inner == nil {
		return nil
	}
	if s.refs == nil {
		s.refs = &recordingResolver{values: map[string]string{}}
	}
	s.refs.inner = inner
	return s.refs
}
