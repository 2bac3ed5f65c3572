package cdkd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// Package is cdkd's npm package.
const Package = "@go-to-k/cdkd"

// DefaultInstallTimeout bounds `npm install` of a cdkd-version.
const DefaultInstallTimeout = 5 * time.Minute

// Source says where the cdkd that runs came from.
type Source string

const (
	SourcePath    Source = "cdkd-path"    // the cdkd-path input
	SourceRepo    Source = "node_modules" // the repository's node_modules/.bin/cdkd
	SourceBundled Source = "bundled"      // cdkd on PATH (the image's)
	SourceNPM     Source = "npm install"  // cdkd-version, installed for this run
)

// Choice is the cdkd a run uses, its version and why it was chosen.
type Choice struct {
	Path    string
	Version string // "" when --version could not be read
	// VersionErr is why --version could not be read (a hung binary times
	// out): the run reports it instead of asking again.
	VersionErr error
	// Pending is `cdkd --version` still running (LocateOptions.Alongside):
	// AwaitVersion fills in Version and VersionErr.
	Pending *PendingVersion
	Source  Source
	Why     string // one sentence for the log
}

// Locate options. Zero values: "cdkd" on PATH, npm on PATH.
type LocateOptions struct {
	// Path is the cdkd-path input; it wins when set.
	Path string
	// Version is the cdkd-version input ("" means the bundled cdkd).
	Version string
	// Dir is the working directory, where node_modules/.bin/cdkd is looked for.
	Dir string
	// InstallDir is where npm installs cdkd-version (npm --prefix). Empty:
	// Locate never installs and says what it would do (for --version).
	InstallDir string
	// Log receives npm's output.
	Log io.Writer
	// InstallTimeout bounds npm install (DefaultInstallTimeout when zero).
	InstallTimeout time.Duration
	// EnvBase replaces os.Environ() as the environment cdkd and npm
	// inherit when non-nil (see Runner.EnvBase).
	EnvBase []string
	// Env is added to cdkd's and npm's environment.
	Env []string
	// Timeout bounds each cdkd call, as timeout-minutes does (--version is
	// bounded by VersionTimeout in any case).
	Timeout time.Duration
	// VersionTimeout is Runner.VersionTimeout.
	VersionTimeout time.Duration
	// Alongside: when the chosen cdkd's version is neither in its package
	// (PackageVersion) nor needed to choose it, `cdkd --version` is started
	// in the background instead of waited for (Choice.Pending), so that it
	// runs alongside the command's own work rather than before it.
	Alongside bool
}

// Locate picks the cdkd to run: cdkd-path if set; else the repository's own
// node_modules/.bin/cdkd (the version its lockfile pins); else the bundled
// cdkd on PATH, or cdkd-version installed with npm when it differs.
func Locate(ctx context.Context, o LocateOptions) (Choice, error) {
	var verr error
	var pending *PendingVersion
	// version is the version of the cdkd at path: its package's, else what
	// --version says; needed says the choice depends on it, else it may be
	// learned alongside (o.Alongside).
	version := func(path string, needed bool) string {
		if v := PackageVersion(path); v != "" {
			return v
		}
		// Run bounds --version by VersionTimeout: a cdkd that hangs there
		// has its version reported as unknown, and why.
		r := &Runner{Path: path, Dir: o.Dir, EnvBase: o.EnvBase, Env: o.Env, KillGrace: time.Second, Timeout: o.Timeout, VersionTimeout: o.VersionTimeout}
		if o.Alongside && !needed {
			pending = startVersion(ctx, r)
			return ""
		}
		v, err := r.Version(ctx)
		verr = err
		if err != nil {
			return ""
		}
		return v
	}
	c, err := locate(ctx, o, version)
	switch {
	case err != nil && pending != nil:
		pending.stop()
	case pending != nil:
		c.Pending = pending
	case c.Version == "":
		c.VersionErr = verr
	}
	return c, err
}

func locate(ctx context.Context, o LocateOptions, version func(path string, needed bool) string) (Choice, error) {
	if o.Path != "" {
		r := &Runner{Path: o.Path, Dir: o.Dir}
		if err := r.Available(); err != nil {
			return Choice{}, err
		}
		return Choice{Path: o.Path, Version: version(o.Path, false), Source: SourcePath, Why: "the cdkd-path input names it"}, nil
	}
	if repo := repoCdkd(o.Dir); repo != "" {
		// With cdkd-version set, the log says whether this one differs.
		c := Choice{Path: repo, Version: version(repo, o.Version != ""), Source: SourceRepo, Why: "the repository has its own cdkd in node_modules/.bin (the version its lockfile pins)"}
		if o.Version != "" && c.Version != "" && c.Version != o.Version {
			c.Why += fmt.Sprintf("; it wins over cdkd-version %s", o.Version)
		}
		return c, nil
	}
	bundled, lookErr := exec.LookPath(DefaultPath)
	var bv string
	if lookErr == nil {
		bv = version(bundled, o.Version != "")
	}
	switch {
	case lookErr == nil && o.Version == "":
		return Choice{Path: bundled, Version: bv, Source: SourceBundled, Why: "the cdkd on PATH (bundled with the action); set cdkd-version or cdkd-path to choose another"}, nil
	case lookErr == nil && bv == o.Version:
		return Choice{Path: bundled, Version: bv, Source: SourceBundled, Why: fmt.Sprintf("the cdkd on PATH is cdkd-version %s", o.Version)}, nil
	case o.Version == "":
		return Choice{}, fmt.Errorf("%w: no cdkd-path, no node_modules/.bin/cdkd in %s and no cdkd on PATH: install %s, or set cdkd-path or cdkd-version", ErrNotFound, o.Dir, Package)
	}
	why := fmt.Sprintf("cdkd-version %s differs from the cdkd on PATH (%s)", o.Version, bv)
	if lookErr != nil {
		why = fmt.Sprintf("cdkd-version %s is asked and no cdkd is on PATH", o.Version)
	}
	if o.InstallDir == "" {
		return Choice{Version: o.Version, Source: SourceNPM, Why: why + ": it would be installed with npm"}, nil
	}
	path, err := install(ctx, o)
	if err != nil {
		return Choice{}, fmt.Errorf("%s: %w", why, err)
	}
	got := version(path, true)
	if got != o.Version {
		return Choice{}, fmt.Errorf("npm installed %s@%s but its cdkd --version says %q", Package, o.Version, got)
	}
	return Choice{Path: path, Version: got, Source: SourceNPM, Why: why + ": installed with npm for this run"}, nil
}

// repoCdkd returns dir's node_modules/.bin/cdkd when it is there.
func repoCdkd(dir string) string {
	name := "cdkd"
	if runtime.GOOS == "windows" {
		name = "cdkd.cmd"
	}
	p, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", name))
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return ""
	}
	return p
}

// install runs npm install of cdkd-version into o.InstallDir, bounded.
func install(ctx context.Context, o LocateOptions) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not on PATH to install it")
	}
	timeout := o.InstallTimeout
	if timeout <= 0 {
		timeout = DefaultInstallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	spec := Package + "@" + o.Version
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", o.InstallDir, "--no-fund", "--no-audit", "--no-save", spec)
	base := o.EnvBase
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(slices.Clone(base), o.Env...)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("npm install %s did not finish within %s", spec, timeout)
		}
		return "", fmt.Errorf("npm install %s failed: %w", spec, err)
	}
	path := repoCdkd(o.InstallDir)
	if path == "" {
		return "", fmt.Errorf("npm install %s left no node_modules/.bin/cdkd", spec)
	}
	return path, nil
}
