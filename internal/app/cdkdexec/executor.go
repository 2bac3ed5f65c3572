// Package cdkdexec is the cdkd a run uses: which cdkd runs, how each call
// is bounded (timeout-minutes), and its stderr streamed redacted inside
// stop-commands, held back until discovery has finished, or buffered for
// calls that run side by side.
package cdkdexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
)

// Executor runs cdkd for one run.
type Executor struct {
	// Config is the run's inputs (cdkd-path, cdkd-version,
	// working-directory, timeout-minutes, the stacks and the state).
	Config *config.Config
	// VersionTimeout bounds `cdkd --version`; zero means
	// cdkd.VersionTimeout.
	VersionTimeout time.Duration
	// KillGrace replaces how long cdkd gets after SIGINT before it is
	// killed; zero keeps cdkd's.
	KillGrace time.Duration
	// Environ is the environment cdkd and npm inherit; nil means the
	// process's.
	Environ []string
	// Secrets redacts every line cdkd writes.
	Secrets *secrets.Set
	// Out is the redacted log stream; Log writes the log's commands.
	Out *secrets.LineWriter
	Log *workflow.Runner
	// BeforeFlush runs before output held back is printed: it registers
	// the masks discovery found meanwhile.
	BeforeFlush func()
	// StateObjects answers the run's state bucket and a raw reader of its
	// objects, for the read-back that starts no cdkd process (ReadBack);
	// a nil get (no bucket known, no AWS) reads through cdkd.
	StateObjects func(ctx context.Context) (bucket string, get func(ctx context.Context, bucket, key string) ([]byte, error))
	// AssemblyRegion is a stack's region in the cloud assembly, "" when
	// unknown.
	AssemblyRegion func(stack string) string

	// logMu keeps the log groups of cdkd calls run side by side whole.
	logMu sync.Mutex
	// choice is the cdkd Locate found; nil with from-json.
	choice *cdkd.Choice
	// cleanups run when the run ends (e.g. an npm-installed cdkd).
	cleanups []func()
	// held is cdkd's output held back until discovery finished (held.go).
	held *heldOutput
}

// Runner runs cdkd in the working directory with the live renderer off.
func (x *Executor) Runner() *cdkd.Runner {
	path := x.Config.CdkdPath
	if x.choice != nil {
		path = x.choice.Path
	}
	// Every call is bounded by timeout-minutes (--version by less).
	return &cdkd.Runner{Path: path, Dir: x.Config.WorkingDirectory, Timeout: x.Config.Timeout, VersionTimeout: x.VersionTimeout, KillGrace: x.KillGrace, EnvBase: x.Environ, Redact: x.Secrets.RedactLoose}
}

// Run streams cdkd's stderr to the log, redacted line by line and inside
// stop-commands, so a template or state value cannot issue workflow commands.
func (x *Executor) Run(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	return x.RunVia(ctx, runner, args, nil)
}

// RunVia is runCdkd with each stderr line passed through wrap before
// the redacting log stream (nil: straight to it).
func (x *Executor) RunVia(ctx context.Context, runner *cdkd.Runner, args []string, wrap func(io.Writer) io.Writer) (cdkd.Result, error) {
	stream := secrets.NewLooseLineWriter(x.Out, x.Secrets)
	runner.Stderr = stream
	if wrap != nil {
		runner.Stderr = wrap(stream)
	}
	x.Log.Group("cdkd " + strings.Join(args, " "))
	resume := x.Log.StopCommands()
	res, err := runner.Run(ctx, args...)
	stream.Close()
	resume()
	x.Log.EndGroup()
	return res, err
}

// RunBuffered is runCdkd for calls that run side by side: each call's
// stderr is redacted into a buffer and written to the log as one group
// when the call is over, so the groups of parallel calls do not interleave.
func (x *Executor) RunBuffered(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	buf := &cappedLog{max: maxBufferedLog}
	stream := secrets.NewLooseLineWriter(buf, x.Secrets)
	runner.Stderr = stream
	res, err := runner.Run(ctx, args...)
	stream.Close()
	x.logMu.Lock()
	defer x.logMu.Unlock()
	x.Log.Group("cdkd " + strings.Join(args, " "))
	resume := x.Log.StopCommands()
	_, werr := x.Out.Write(buf.Bytes())
	resume()
	x.Log.EndGroup()
	if buf.dropped > 0 {
		x.Log.Notice(fmt.Sprintf("cdkd %s wrote %d more bytes of log, left out", args[0], buf.dropped))
	}
	if werr != nil {
		x.Log.Warning(fmt.Sprintf("write the log of cdkd %s: %v", args[0], werr))
	}
	return res, err
}

// maxBufferedLog bounds the log one buffered cdkd call keeps.
const maxBufferedLog = 1 << 20

// cappedLog keeps the first max bytes written to it (already redacted) and
// counts the rest.
type cappedLog struct {
	bytes.Buffer
	max     int
	dropped int
}

func (b *cappedLog) Write(p []byte) (int, error) {
	keep := min(len(p), max(b.max-b.Len(), 0))
	b.Buffer.Write(p[:keep])
	b.dropped += len(p) - keep
	return len(p), nil
}

// FailureText is an error as a report's failure line, which already says
// which cdkd command failed: cdkd's own reason and its exit code.
func (x *Executor) FailureText(err error) string {
	var cerr *cdkd.Error
	if errors.As(err, &cerr) && cerr.Reason != "" {
		text := cerr.Reason
		switch {
		case errors.Is(err, cdkd.ErrTimeout):
			text += " (timeout-minutes)"
		case cerr.Signal != "":
			text += " (cdkd was killed by " + cerr.Signal + ")"
		default:
			text += fmt.Sprintf(" (cdkd exited %d)", cerr.ExitCode)
		}
		if cerr.Lock != "" {
			text += ". " + cerr.Lock
		}
		return x.Secrets.OneLineLoose(text)
	}
	return x.Secrets.OneLineLoose(err.Error())
}

// Locate picks the cdkd this run uses and says which, its version and
// why in the log. An npm install of cdkd-version goes to a temporary
// directory removed when the run ends.
func (x *Executor) Locate(ctx context.Context) error {
	o := cdkd.LocateOptions{Path: x.Config.CdkdPath, Version: x.Config.CdkdVersion, Dir: x.Config.WorkingDirectory, Log: x.Out, Timeout: x.Config.Timeout, EnvBase: x.Environ}
	if o.Path == "" && o.Version != "" {
		dir, err := os.MkdirTemp("", "cdkd-npm-")
		if err != nil {
			return fmt.Errorf("make a directory to install cdkd %s in: %w", o.Version, err)
		}
		x.cleanups = append(x.cleanups, func() { _ = os.RemoveAll(dir) })
		o.InstallDir = dir
	}
	o.VersionTimeout = x.VersionTimeout
	// A version not in cdkd's package is asked alongside the command's
	// own work: a cdkd process is a second of Node start-up.
	o.Alongside = true
	c, err := cdkd.Locate(ctx, o)
	if err != nil {
		return &config.InputError{Input: "cdkd-path", Msg: err.Error()}
	}
	x.choice = &c
	if c.Pending != nil {
		// Said once the version is known (Version), or at the end.
		x.cleanups = append(x.cleanups, func() {
			if x.choice.Pending != nil {
				x.choice.StopVersion()
				x.Log.Info(fmt.Sprintf("Used cdkd at %s: %s.", c.Path, c.Why))
			}
		})
		return nil
	}
	x.Log.Info(fmt.Sprintf("Using cdkd %s at %s: %s.", ShownVersion(c.Version), c.Path, c.Why))
	return nil
}

// Version is the version of the cdkd that runs: known from Locate
// (waited for here when it is asked alongside), none for a saved report.
// Call it once the command's own cdkd call is over, so that the two run
// side by side.
func (x *Executor) Version(ctx context.Context, runner *cdkd.Runner) (string, error) {
	if x.Config.FromJSON != "" {
		return "", nil
	}
	if x.choice != nil && x.choice.Pending != nil {
		x.choice.AwaitVersion(ctx)
		x.Log.Info(fmt.Sprintf("Using cdkd %s at %s: %s.", ShownVersion(x.choice.Version), x.choice.Path, x.choice.Why))
	}
	if x.choice != nil && (x.choice.Version != "" || x.choice.VersionErr != nil) {
		return x.choice.Version, x.choice.VersionErr
	}
	return runner.Version(ctx)
}

// Unusable is a --version failure known before the command runs that
// says cdkd cannot run at all: not found, or hung (the command would hang
// too). nil while --version still runs alongside.
func (x *Executor) Unusable() error {
	if x.Config.FromJSON != "" || x.choice == nil || !Unusable(x.choice.VersionErr) {
		return nil
	}
	return x.choice.VersionErr
}

// Unusable says a --version failure means cdkd cannot run at all, as
// opposed to an old or odd --version.
func Unusable(err error) bool {
	return errors.Is(err, cdkd.ErrNotFound) || errors.Is(err, cdkd.ErrTimeout)
}

// Source is the footer's word on where cdkd came from.
func (x *Executor) Source() string {
	if x.choice == nil {
		return ""
	}
	return string(x.choice.Source)
}

func (x *Executor) Common() cdkd.Common {
	prefix := x.Config.StatePrefix
	if prefix == "cdkd" {
		prefix = "" // cdkd's own default: keep the command line short
	}
	return cdkd.Common{
		Stacks:      x.Config.Stacks,
		All:         x.Config.All,
		App:         x.Config.App,
		Context:     x.Config.Context,
		StateBucket: x.Config.StateBucket,
		StatePrefix: prefix,
		RoleARN:     x.Config.RoleARN,
	}
}

// StackState reads a stack's state as cdkd state show prints it, for the
// values of the resources a deploy deletes.
func (x *Executor) StackState(ctx context.Context, name, region string) (*cdkd.StackState, string) {
	if x.Config.FromJSON != "" || x.choice == nil {
		return nil, "cdkd's state was not read (the diff came from from-json)"
	}
	st, err := x.ReadBack(ctx).State(ctx, name, x.KnownRegion(name, region))
	if err != nil {
		why := fmt.Sprintf("cdkd's state of %s could not be read: %v", name, err)
		x.logMu.Lock() // stacks are read in parallel: one log line at a time
		x.Log.Warning("security changes: " + why)
		x.logMu.Unlock()
		return nil, why
	}
	return &st, ""
}

// ShownVersion is a cdkd version as the log shows it.
func ShownVersion(v string) string {
	if v == "" {
		return "(version unknown)"
	}
	return v
}

// Cleanup removes what the run's cdkd left behind (an npm-installed cdkd).
func (x *Executor) Cleanup() {
	for _, c := range x.cleanups {
		c()
	}
}
