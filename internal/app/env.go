package app

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/outcome"
	"github.com/cdkd-action/cdkd-action/internal/app/parts"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Env is the per-run context, built once by App.Run: the validated inputs
// and the GitHub context, and the parts a command talks through, each a
// named field of a type of its own — the step's log, the secret session,
// the cdkd executor, the publisher's channels and the AWS edge. A command
// is given the parts it uses, by name (see commands).
type Env struct {
	app   *App
	cfg   config.Config
	gh    ghctx.Context
	local bool

	// parts are what a command talks through, each a named field of its
	// own type: the log, the secret session, the cdkd executor, the
	// publisher's channels and the AWS edge (see package parts).
	parts *parts.Parts
}

// newEnv builds the log and the secret session: every line the run prints
// passes the redactor of the Set that discovery fills. The parts read the
// inputs and the GitHub context from the Env, once they are loaded.
func (a *App) newEnv() *Env {
	e := &Env{app: a}
	p := parts.New(parts.Setup{Getenv: a.Getenv, Environ: a.Environ, LogOut: a.logWriter(), Stdout: a.Stdout,
		Deps: a.Deps, LearnKey: e.learnKey}, &e.cfg, &e.gh)
	e.parts = p
	return e
}

// setLocal makes the run local (or not) in every part that asks.
func (e *Env) setLocal(local bool) {
	e.local = local
	e.parts.SetLocal(local)
}

// finish reports an outcome.Outcome on every channel that still works: the log,
// the failure-reason output and, if the command wrote none, the job summary
// (every failure path writes one). It returns the exit code.
func (e *Env) finish(o outcome.Outcome) ExitCode {
	e.parts.Cdkd.FlushHeld()
	e.parts.Channels.SetOutput(publisher.OutputFailureReason, o.Reason.String())
	if o.Message == "" {
		return o.Code
	}
	msg := o.Message
	if o.Unreported {
		// Redacted before and after dropRepeats: removing a repeated part
		// must neither break a secret's match nor join one together.
		msg = e.parts.Secrets.Set.Redact(dropRepeats(e.parts.Secrets.Set.OneLine(msg)))
	}
	e.parts.Runner.Error(msg)
	if !e.parts.Channels.SummaryWritten() {
		title := "cdkd-action failed"
		if e.cfg.Command != "" {
			title = fmt.Sprintf("cdkd %s failed", e.cfg.Command)
		}
		e.parts.Channels.Summary(fmt.Sprintf("## ❌ %s\n\n%s\n", title, reporters.Text(msg)))
	}
	return o.Code
}

// dropRepeats removes a ": "-separated part that repeats the one before it
// ("api failed: api failed: x" is "api failed: x"), the last line of
// defence against wrapping that says the same thing twice.
func dropRepeats(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:1]
	for _, p := range parts[1:] {
		if !strings.EqualFold(strings.TrimSpace(p), strings.TrimSpace(out[len(out)-1])) {
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}
