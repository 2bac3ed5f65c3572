package cdkd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// npmPackage lays out cdkd as npm installs it: <root>/node_modules/@go-to-k/cdkd
// with package.json and dist/cli.js (a script printing cliSays for --version and
// logging every call to <root>/calls), and node_modules/.bin/cdkd linking to it.
func npmPackage(t *testing.T, root, packageJSON, cliSays string) (bin, calls string) {
	t.Helper()
	pkg := filepath.Join(root, "node_modules", "@go-to-k", "cdkd")
	assert.NilError(t, os.MkdirAll(filepath.Join(pkg, "dist"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(packageJSON), 0o644))
	calls = filepath.Join(root, "calls")
	cli := filepath.Join(pkg, "dist", "cli.js")
	assert.NilError(t, os.WriteFile(cli, []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\necho "+cliSays+"\n"), 0o755))
	bins := filepath.Join(root, "node_modules", ".bin")
	assert.NilError(t, os.MkdirAll(bins, 0o755))
	bin = filepath.Join(bins, "cdkd")
	assert.NilError(t, os.Symlink(filepath.Join("..", "@go-to-k", "cdkd", "dist", "cli.js"), bin))
	return bin, calls
}

func TestPackageVersion(t *testing.T) {
	tests := []struct {
		name, packageJSON, want string
	}{
		{"cdkd's package", `{"name": "@go-to-k/cdkd", "version": "0.284.40", "bin": {"cdkd": "dist/cli.js"}}`, "0.284.40"},
		{"a prerelease", `{"name": "@go-to-k/cdkd", "version": "0.285.0-rc.1"}`, "0.285.0-rc.1"},
		{"another package", `{"name": "cdkd-fork", "version": "0.284.40"}`, ""},
		{"no version", `{"name": "@go-to-k/cdkd"}`, ""},
		{"not a version", `{"name": "@go-to-k/cdkd", "version": "latest\n::warning::x"}`, ""},
		{"not JSON", `{"name": "@go-to-k/cdkd",`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin, _ := npmPackage(t, t.TempDir(), tc.packageJSON, "9.9.9")
			assert.Equal(t, PackageVersion(bin), tc.want)
		})
	}
	t.Run("a wrapper script with no package", func(t *testing.T) {
		dir := t.TempDir()
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "@go-to-k/cdkd", "version": "0.284.40"}`), 0o644))
		assert.Equal(t, PackageVersion(fakeCdkd(t, dir, "0.284.40")), "")
	})
	t.Run("a file that does not exist", func(t *testing.T) {
		assert.Equal(t, PackageVersion(filepath.Join(t.TempDir(), "cdkd")), "")
	})
}

// An installed package's version is read from it: no cdkd process runs.
func TestLocateReadsTheInstalledPackage(t *testing.T) {
	repo := t.TempDir()
	bin, calls := npmPackage(t, repo, `{"name": "@go-to-k/cdkd", "version": "0.284.40"}`, "0.284.40")
	for _, alongside := range []bool{false, true} {
		c, err := Locate(context.Background(), LocateOptions{Dir: repo, Alongside: alongside})
		assert.NilError(t, err)
		assert.Equal(t, c.Path, bin)
		assert.Equal(t, c.Version, "0.284.40")
		assert.Assert(t, c.Pending == nil)
	}
	_, err := os.Stat(calls)
	assert.Assert(t, os.IsNotExist(err), "cdkd was started")
}

// A cdkd with no package (cdkd-path naming a wrapper) is asked --version
// alongside: Locate does not wait for it, AwaitVersion does.
func TestLocateAsksVersionAlongside(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	slow := filepath.Join(dir, "cdkd")
	// --version answers once the gate file exists.
	assert.NilError(t, os.WriteFile(slow, []byte("#!/bin/sh\nwhile [ ! -e "+gate+" ]; do sleep 0.01; done\necho 0.284.40\n"), 0o755))
	c, err := Locate(context.Background(), LocateOptions{Path: slow, Alongside: true})
	assert.NilError(t, err)
	assert.Equal(t, c.Version, "")
	assert.Assert(t, c.Pending != nil, "Locate waited for --version")
	assert.NilError(t, os.WriteFile(gate, nil, 0o644))
	c.AwaitVersion(context.Background())
	assert.Equal(t, c.Version, "0.284.40")
	assert.NilError(t, c.VersionErr)
	assert.Assert(t, c.Pending == nil)

	t.Run("a hung --version is reported as such", func(t *testing.T) {
		hung := filepath.Join(t.TempDir(), "cdkd")
		assert.NilError(t, os.WriteFile(hung, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755))
		c, err := Locate(context.Background(), LocateOptions{Path: hung, Alongside: true, VersionTimeout: 200 * time.Millisecond})
		assert.NilError(t, err)
		c.AwaitVersion(context.Background())
		assert.ErrorIs(t, c.VersionErr, ErrTimeout)
		assert.Equal(t, c.Version, "")
	})
	t.Run("a run that ends first stops it", func(t *testing.T) {
		hung := filepath.Join(t.TempDir(), "cdkd")
		assert.NilError(t, os.WriteFile(hung, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755))
		c, err := Locate(context.Background(), LocateOptions{Path: hung, Alongside: true})
		assert.NilError(t, err)
		done := make(chan struct{})
		go func() { c.StopVersion(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("StopVersion did not end --version")
		}
	})
	t.Run("a version the choice depends on is waited for", func(t *testing.T) {
		repo := t.TempDir()
		fakeCdkd(t, filepath.Join(repo, "node_modules", ".bin"), "0.2.0")
		c, err := Locate(context.Background(), LocateOptions{Dir: repo, Version: "0.284.40", Alongside: true})
		assert.NilError(t, err)
		assert.Assert(t, c.Pending == nil)
		assert.Equal(t, c.Version, "0.2.0")
	})
}
