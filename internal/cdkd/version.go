package cdkd

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// Learning cdkd's version without a cdkd process: every process costs about
// a second of Node start-up, and the version is only needed for the report.

// maxPackageJSON bounds what is read of a package.json.
const maxPackageJSON = 1 << 20

// releasePattern is a cdkd release as npm and `cdkd --version` spell it.
var releasePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`) })

// PackageVersion reads the version of the installed cdkd package whose
// dist/cli.js path resolves to: npm links node_modules/.bin/cdkd, and a
// global install's bin/cdkd, to <package>/dist/cli.js, and cdkd's
// --version prints the version of <package>/package.json (built into
// dist/cli.js from it). It returns "" when path is not that: a wrapper
// script, a bundle (../shared/cdkd/bin/cdkd.mjs), a Windows shim, or a
// package that is not @go-to-k/cdkd; the caller then asks cdkd --version.
func PackageVersion(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil || filepath.Base(real) != "cli.js" || filepath.Base(filepath.Dir(real)) != "dist" {
		return ""
	}
	f, err := os.Open(filepath.Join(filepath.Dir(filepath.Dir(real)), "package.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPackageJSON+1))
	if err != nil || len(b) > maxPackageJSON {
		return ""
	}
	var pkg struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.Name != Package || !releasePattern().MatchString(pkg.Version) {
		return ""
	}
	return pkg.Version
}

// PendingVersion is `cdkd --version` running alongside the command's own
// work (LocateOptions.Alongside).
type PendingVersion struct {
	done    chan struct{}
	cancel  context.CancelFunc
	version string
	err     error
}

// startVersion starts `cdkd --version` in the background; stop, or ctx
// ending, ends it.
func startVersion(ctx context.Context, r *Runner) *PendingVersion {
	ctx, cancel := context.WithCancel(ctx)
	c := &PendingVersion{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(c.done)
		c.version, c.err = r.Version(ctx)
	}()
	return c
}

// wait returns what --version said, or ctx's error when ctx is done first.
func (c *PendingVersion) wait(ctx context.Context) (string, error) {
	select {
	case <-c.done:
		return c.version, c.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// stop ends the call, if it still runs, and waits for it.
func (c *PendingVersion) stop() {
	c.cancel()
	<-c.done
}

// AwaitVersion waits for the --version Locate started alongside (Pending)
// and fills in Version and VersionErr; ctx ending first stops it, and the
// version is then unknown for that reason. Without one it does nothing.
func (c *Choice) AwaitVersion(ctx context.Context) {
	if c.Pending == nil {
		return
	}
	v, err := c.Pending.wait(ctx)
	if err != nil && ctx.Err() != nil {
		c.Pending.stop()
	}
	c.Version, c.VersionErr, c.Pending = v, err, nil
}

// StopVersion ends a --version still running alongside: the run ended
// without needing it.
func (c *Choice) StopVersion() {
	if c.Pending != nil {
		c.Pending.stop()
	}
}
