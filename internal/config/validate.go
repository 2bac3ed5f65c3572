package config

// The checks of a loaded Config: one sentence per bad input, naming the
// input and what it expects.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

func (c Config) validate(cs Commands) error {
	if err := cs.validateCommand(c); err != nil {
		return err
	}
	if c.Command == CommandVerify && c.FromJSON != "" {
		return bad("from-json", "verify runs cdkd diff on the group's head itself; a saved diff cannot stand for it, so leave from-json empty")
	}
	if err := c.validateSharding(cs); err != nil {
		return err
	}
	if strings.HasPrefix(c.App, "-") {
		return bad("app", "expected an app command or a cloud assembly directory, got %q (it starts with '-')", c.App)
	}
	for _, s := range c.Stacks {
		if strings.HasPrefix(s, "-") {
			return bad("stacks", "stack names cannot start with '-', got %q", s)
		}
	}
	if c.All && len(c.Stacks) > 0 {
		return bad("stacks", "set either stacks or all: true, not both")
	}
	switch c.Comment {
	case CommentUpdate, CommentRecreate, CommentOff:
	default:
		return bad("comment", "expected update, recreate or off, got %q", c.Comment)
	}
	if strings.ContainsAny(c.Label, "\r\n") || len(c.Label) > 100 {
		return bad("label", "expected one line of at most 100 characters")
	}
	if c.CdkdVersion != "" && !versionPattern().MatchString(c.CdkdVersion) {
		return bad("cdkd-version", "expected a cdkd release such as 0.284.40, got %q", c.CdkdVersion)
	}
	if c.StatePrefix == "" {
		return bad("state-prefix", "expected a key prefix such as cdkd, got an empty value")
	}
	if err := c.validateFingerprints(); err != nil {
		return err
	}
	if c.WorkingDirectory == "" {
		return bad("working-directory", "expected a directory, got an empty value")
	}
	if fi, err := os.Stat(c.WorkingDirectory); err != nil || !fi.IsDir() {
		return bad("working-directory", "expected an existing directory, got %q", c.WorkingDirectory)
	}
	if c.CdkdExitCode != nil && c.FromJSON == "" {
		return bad("cdkd-exit-code", "it is the exit code of the cdkd drift run whose JSON from-json holds; set from-json too, or leave cdkd-exit-code empty")
	}
	if err := c.validateAppPath(); err != nil {
		return err
	}
	if err := c.validateBaseApp(); err != nil {
		return err
	}
	if c.FromJSON != "" {
		if fi, err := os.Stat(c.FromJSON); err != nil || fi.IsDir() {
			return bad("from-json", "expected a file holding cdkd diff --json or cdkd drift --json output, or a cdkd-action report JSON, got %q (not a readable file)", c.FromJSON)
		}
		if c.DriftResolution != ResolutionNone {
			return bad("drift-resolution", "a saved report (from-json) cannot be resolved: set drift-resolution: none")
		}
	}
	for _, name := range c.MaskEnv {
		if !envNamePattern().MatchString(name) {
			return bad("mask-env", "expected environment variable names, got %q", name)
		}
	}
	switch c.DriftResolution {
	case ResolutionNone, ResolutionAccept, ResolutionRevert:
	default:
		return bad("drift-resolution", "expected none, accept or revert, got %q", c.DriftResolution)
	}
	if c.StackRegion != "" && !regionPattern().MatchString(c.StackRegion) {
		return bad("stack-region", "expected an AWS region such as us-east-1, got %q", c.StackRegion)
	}
	if slices.Contains(cs.readBy("trusted-app"), c.Command) && !appSlugPattern().MatchString(c.TrustedApp) {
		return bad("trusted-app", "expected the slug of the GitHub App whose diff check runs vouch for a review, such as github-actions, got %q", c.TrustedApp)
	}
	for _, t := range c.AllowDestroyTypes {
		if !resourceTypePattern().MatchString(t) {
			return bad("allow-destroy-types", "expected resource types such as AWS::Lambda::Version, got %q", t)
		}
	}
	if c.DestructiveLabel == "" {
		return bad("destructive-label", "expected a label name, got an empty value")
	}
	if c.RoleARN != "" && !strings.HasPrefix(c.RoleARN, "arn:") {
		return bad("role-arn", "expected an IAM role ARN (arn:aws:iam::ACCOUNT:role/NAME), got %q", c.RoleARN)
	}
	return c.cliError(cs)
}

// validateAppPath refuses an app that names a path where nothing exists:
// cdkd would run it as a command and fail with "/bin/sh: 1: cdk.out: not
// found", when what is missing is the synth step that writes the
// assembly, or the name has a typo. A directory with no manifest (an
// empty cdk.out) is refused too.
func (c Config) validateAppPath() error {
	if !looksLikePath(c.App) {
		return nil
	}
	if fi, err := os.Stat(c.InWorkingDirectory(c.App)); err == nil {
		if fi.IsDir() && !isAssemblyDir(c.InWorkingDirectory(c.App)) {
			// cdkd reads a directory as a synthesized assembly and would
			// fail with "manifest.json: ENOENT".
			return bad("app", "%q (in working-directory %q) is a directory with no manifest.json: expected the cloud assembly a synth step writes (such as `npx cdk synth -o %s`), or an app command", c.App, c.WorkingDirectory, c.App)
		}
		return nil
	}
	return bad("app", "nothing exists at %q (in working-directory %q): expected the cloud assembly a synth step writes before this one (such as `npx cdk synth -o %s`), or an app command", c.App, c.WorkingDirectory, c.App)
}

// looksLikePath: one word with a / or a . in it, and nothing a shell
// would read as an operator. A bare word (make, node) may be a command on
// PATH, and is left to cdkd.
func looksLikePath(app string) bool {
	return app != "" && strings.ContainsAny(app, "/.") && !strings.ContainsAny(app, " \t\n;&|<>()$`\\\"'*?[]{}#~!=%")
}

// validateBaseApp: with base-app, both assemblies are directories holding
// a manifest. app is then the pull request's own: a command would run its
// code, so only a synthesized assembly is read.
func (c Config) validateBaseApp() error {
	if c.BaseApp == "" {
		return nil
	}
	if !isAssemblyDir(c.InWorkingDirectory(c.BaseApp)) {
		return bad("base-app", "expected the base branch's synthesized cloud assembly (a directory with manifest.json, such as cdk.out), got %q", c.BaseApp)
	}
	if !isAssemblyDir(c.InWorkingDirectory(c.App)) {
		return bad("app", "with base-app set, app is the pull request's cloud assembly and must be a synthesized one (a directory with manifest.json): no command of the pull request is run; got %q", c.App)
	}
	return nil
}

// InWorkingDirectory takes a relative app path against the working
// directory, as cdkd does.
func (c Config) InWorkingDirectory(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.WorkingDirectory, p)
}

func isAssemblyDir(dir string) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, "manifest.json"))
	return err == nil && !fi.IsDir()
}

var (
	versionPattern      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`) })
	regionPattern       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d+$`) })
	resourceTypePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]+::[A-Za-z0-9]+::[A-Za-z0-9]+$`) })
	envNamePattern      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	contextKey          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s=-][^\s=]*$`) })
	// appSlugPattern is a GitHub App's slug: its name, lower-cased, with
	// hyphens (github-actions, my-deployer).
	appSlugPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,99}$`) })
)
