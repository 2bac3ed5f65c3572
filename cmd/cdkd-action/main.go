// Command cdkd-action runs cdkd in GitHub Actions (or locally) and reports
// what it found. All logic lives in internal/app.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/cdkd-action/cdkd-action/internal/app"
)

// version is the action's release, stamped at build time:
//
//	go build -ldflags "-X main.version=1.2.3" ./cmd/cdkd-action
var version = "dev"

// releaseVersion is the stamped version, else the module version a
// `go install …@v1.2.3` build records in its build info, else "dev" (a
// build from a checkout records "(devel)").
func releaseVersion(stamped string, info func() (*debug.BuildInfo, bool)) string {
	if stamped != "dev" {
		return stamped
	}
	if bi, ok := info(); ok && strings.HasPrefix(bi.Main.Version, "v") {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return stamped
}

func main() {
	// The runner cancels a job with SIGINT, then SIGTERM: both cancel the
	// context, which forwards SIGINT to cdkd so it can release its lock.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := &app.App{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ, Args: os.Args[1:], Version: releaseVersion(version, debug.ReadBuildInfo)}
	code := a.Run(ctx)
	stop()
	os.Exit(int(code))
}
