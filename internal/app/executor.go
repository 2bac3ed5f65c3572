package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// The cdkd executor: which cdkd runs, how each call is bounded
// (timeout-minutes), and its stderr streamed redacted inside stop-commands.

// cdkdRunner runs cdkd in the working directory with the live renderer off.
func (r *Env) cdkdRunner() *cdkd.Runner {
	path := r.cfg.CdkdPath
	if r.cdkd != nil {
		path = r.cdkd.Path
	}
	// Every call is bounded by timeout-minutes (--version by less).
	return &cdkd.Runner{Path: path, Dir: r.cfg.WorkingDirectory, Timeout: r.cfg.Timeout, VersionTimeout: r.app.Deps.CdkdVersionTimeout, KillGrace: r.app.Deps.CdkdKillGrace, EnvBase: r.app.environ(), Redact: r.set.RedactLoose}
}

// cdkdReason is the failure reason for a failed cdkd call: timeout when
// timeout-minutes stopped it, else fallback.
func cdkdReason(err error, fallback FailureReason) FailureReason {
	if errors.Is(err, cdkd.ErrTimeout) {
		return ReasonTimeout
	}
	return fallback
}

// runCdkd streams cdkd's stderr to the log, redacted line by line and inside
// stop-commands, so a template or state value cannot issue workflow commands.
func (r *Env) runCdkd(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	return r.runCdkdVia(ctx, runner, args, nil)
}

// runCdkdVia is runCdkd with each stderr line passed through wrap before
// the redacting log stream (nil: straight to it).
func (r *Env) runCdkdVia(ctx context.Context, runner *cdkd.Runner, args []string, wrap func(io.Writer) io.Writer) (cdkd.Result, error) {
	stream := secrets.NewLooseLineWriter(r.out, r.set)
	runner.Stderr = stream
	if wrap != nil {
		runner.Stderr = wrap(stream)
	}
	r.runner.Group("cdkd " + strings.Join(args, " "))
	resume := r.runner.StopCommands()
	res, err := runner.Run(ctx, args...)
	stream.Close()
	resume()
	r.runner.EndGroup()
	return res, err
}

// runCdkdBuffered is runCdkd for calls that run side by side: each call's
// stderr is redacted into a buffer and written to the log as one group
// when the call is over, so the groups of parallel calls do not interleave.
func (r *Env) runCdkdBuffered(ctx context.Context, runner *cdkd.Runner, args []string) (cdkd.Result, error) {
	buf := &cappedLog{max: maxBufferedLog}
	stream := secrets.NewLooseLineWriter(buf, r.set)
	runner.Stderr = stream
	res, err := runner.Run(ctx, args...)
	stream.Close()
	r.logMu.Lock()
	defer r.logMu.Unlock()
	r.runner.Group("cdkd " + strings.Join(args, " "))
	resume := r.runner.StopCommands()
	_, werr := r.out.Write(buf.Bytes())
	resume()
	r.runner.EndGroup()
	if buf.dropped > 0 {
		r.runner.Notice(fmt.Sprintf("cdkd %s wrote %d more bytes of log, left out", args[0], buf.dropped))
	}
	if werr != nil {
		r.runner.Warning(fmt.Sprintf("write the log of cdkd %s: %v", args[0], werr))
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

// failureText is an error as a report's failure line, which already says
// which cdkd command failed: cdkd's own reason and its exit code.
func (r *Env) failureText(err error) string {
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
		return r.set.OneLineLoose(text)
	}
	return r.set.OneLineLoose(err.Error())
}

// locateCdkd picks the cdkd this run uses and says which, its version and
// why in the log. An npm install of cdkd-version goes to a temporary
// directory removed when the run ends.
func (r *Env) locateCdkd(ctx context.Context) error {
	o := cdkd.LocateOptions{Path: r.cfg.CdkdPath, Version: r.cfg.CdkdVersion, Dir: r.cfg.WorkingDirectory, Log: r.out, Timeout: r.cfg.Timeout, EnvBase: r.app.environ()}
	if o.Path == "" && o.Version != "" {
		dir, err := os.MkdirTemp("", "cdkd-npm-")
		if err != nil {
			return fmt.Errorf("make a directory to install cdkd %s in: %w", o.Version, err)
		}
		r.cleanups = append(r.cleanups, func() { _ = os.RemoveAll(dir) })
		o.InstallDir = dir
	}
	o.VersionTimeout = r.app.Deps.CdkdVersionTimeout
	c, err := cdkd.Locate(ctx, o)
	if err != nil {
		return &config.InputError{Input: "cdkd-path", Msg: err.Error()}
	}
	r.cdkd = &c
	r.runner.Info(fmt.Sprintf("Using cdkd %s at %s: %s.", orUnknown(c.Version), c.Path, c.Why))
	return nil
}

// cdkdVersion is the version of the cdkd that runs: known from locateCdkd,
// none for a saved report.
func (r *Env) cdkdVersion(ctx context.Context, runner *cdkd.Runner) (string, error) {
	if r.cfg.FromJSON != "" {
		return "", nil
	}
	if r.cdkd != nil && (r.cdkd.Version != "" || r.cdkd.VersionErr != nil) {
		return r.cdkd.Version, r.cdkd.VersionErr
	}
	return runner.Version(ctx)
}

// cdkdSource is the footer's word on where cdkd came from.
func (r *Env) cdkdSource() string {
	if r.cdkd == nil {
		return ""
	}
	return string(r.cdkd.Source)
}

func (r *Env) common() cdkd.Common {
	prefix := r.cfg.StatePrefix
	if prefix == "cdkd" {
		prefix = "" // cdkd's own default: keep the command line short
	}
	return cdkd.Common{
		Stacks:      r.cfg.Stacks,
		All:         r.cfg.All,
		App:         r.cfg.App,
		Context:     r.cfg.Context,
		StateBucket: r.cfg.StateBucket,
		StatePrefix: prefix,
		RoleARN:     r.cfg.RoleARN,
	}
}
