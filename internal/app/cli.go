package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/app/cdkdexec"
	"github.com/cdkd-action/cdkd-action/internal/app/publisher"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// This file holds what the binary does as a command-line tool: --help and
// --version, which stream carries what, where the report and the outputs
// go, and which cdkd runs.

// logWriter is where the log goes: stdout inside a runner (the step's log),
// stderr in a local run, where stdout carries only the report.
func (a *App) logWriter() io.Writer {
	if config.LocalRun(a.Getenv, a.Args) && a.Stderr != nil {
		return a.Stderr
	}
	return a.Stdout
}

// meta answers --help and --version, which need no valid input.
func (a *App) meta(ctx context.Context) (ExitCode, bool) {
	switch config.ParseMeta(a.Args) {
	case config.MetaHelp:
		if err := writeHelp(a.Stdout, Commands().HelpCommand(a.Args), config.LocalRun(a.Getenv, a.Args)); err != nil {
			fmt.Fprintf(a.Stderr, "error: %v\n", err)
			return ExitFailure, true
		}
		return ExitOK, true
	case config.MetaVersion:
		a.writeVersion(ctx)
		return ExitOK, true
	}
	return ExitOK, false
}

// writeHelp prints the help of the binary, or of one command (cmd not
// ""): then only the inputs that command reads. Each default shown is the
// one that applies where the binary runs (local or in a runner).
func writeHelp(w io.Writer, cmd config.Command, local bool) error {
	specs, err := config.Specs()
	if err != nil {
		return err
	}
	var b strings.Builder
	if cmd == "" {
		names := make([]string, len(commandTable))
		for i, c := range commandTable {
			names[i] = string(c.Name)
		}
		fmt.Fprintf(&b, `cdkd-action runs cdkd (AWS CDK without CloudFormation) and reports what it found.

Usage:
  cdkd-action [%s] [--input=value ...] [flags]
  cdkd-action COMMAND --help   (the inputs that COMMAND reads)
`, strings.Join(names, "|"))
	} else {
		c, _ := lookup(cmd)
		fmt.Fprintf(&b, "cdkd-action %s\n\nUsage:\n  cdkd-action %s [--input=value ...] [flags]\n", c.help, cmd)
	}
	b.WriteString(`
Outside GitHub Actions the report (Markdown) goes to stdout; warnings,
progress and cdkd's own output go to stderr. A local run makes no network
call of its own (cdkd itself still calls AWS) unless given --resolve-secrets.
`)
	where := "in a runner"
	if local {
		where = "in a local run"
	}
	fmt.Fprintf(&b, "\nInputs (as in action.yml; each is a flag --name=value, or INPUT_<NAME> in the environment; defaults as %s):\n", where)
	for _, s := range specs {
		if cmd != "" && (s.Name == "command" || !Commands().AppliesTo(s, cmd)) {
			continue
		}
		def := s.DefaultIn(local)
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(&b, "  --%s (default: %s)\n      %s\n", s.Name, def, secrets.Fold(s.Description))
	}
	b.WriteString("\nFlags:\n")
	for _, f := range config.CLIFlags() {
		if cmd != "" && !Commands().FlagAppliesTo(f, cmd) {
			continue
		}
		fmt.Fprintf(&b, "  %s\n      %s\n", f.Name, f.Usage)
	}
	b.WriteString(`
Exit codes: 0 ok; 1 changes or drift found and asked to fail on, or a deploy refused;
2 bad input; 3 cdkd or an API failed.
`)
	_, err = io.WriteString(w, b.String())
	return err
}

// writeVersion prints the action's version and the cdkd it would use,
// without installing anything.
func (a *App) writeVersion(ctx context.Context) {
	fmt.Fprintf(a.Stdout, "cdkd-action %s\n", a.version())
	cfg, err := config.LoadIn(Commands(), a.Dir, a.Getenv, a.Args)
	if err != nil {
		cfg = config.Config{WorkingDirectory: "."}
	}
	c, err := cdkd.Locate(ctx, cdkd.LocateOptions{Path: cfg.CdkdPath, Version: cfg.CdkdVersion, Dir: cfg.WorkingDirectory, EnvBase: a.environ(), VersionTimeout: a.Deps.CdkdVersionTimeout})
	switch {
	case err != nil:
		fmt.Fprintf(a.Stdout, "cdkd: none found (%v)\n", err)
	case c.Path == "":
		fmt.Fprintf(a.Stdout, "cdkd %s (%s)\n", c.Version, c.Why)
	default:
		fmt.Fprintf(a.Stdout, "cdkd %s at %s (%s)\n", cdkdexec.ShownVersion(c.Version), c.Path, c.Why)
	}
}

func (a *App) version() string {
	if a.Version == "" {
		return "dev"
	}
	return a.Version
}

// finishLocal ends a run: the report JSON's path on the log (stderr in a
// local run), the outputs as JSON for --outputs-file, and the cleanups.
func (e *Env) finishLocal() {
	e.parts.Cdkd.Cleanup()
	if p := e.parts.Channels.Output(publisher.OutputReportJSON); p != "" && e.local {
		e.parts.Runner.Info("Report JSON: " + p)
	}
	path := e.cfg.CLI.OutputsFile
	if path == "" {
		return
	}
	outputs := e.parts.Channels.Outputs()
	out := make(map[string]string, len(outputs))
	for _, k := range slices.Sorted(maps.Keys(outputs)) {
		out[k] = e.parts.Secrets.Set.Redact(outputs[k])
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err == nil {
		err = os.WriteFile(path, append(e.parts.Secrets.Set.RedactBytes(b), '\n'), 0o644)
	}
	if err != nil {
		err = fmt.Errorf("write the outputs to --outputs-file %s: %w", path, err)
		e.parts.Runner.Error(e.parts.Secrets.Set.Redact(err.Error()))
		e.parts.Channels.Lost(err)
	}
}

// warnInputs warns, in one line each, of inputs that do nothing here and of
// settings whose consequence is easy to miss.
func (e *Env) warnInputs() {
	for _, w := range append(Commands().Ignored(e.cfg), e.cfg.ShardWarnings()...) {
		e.parts.Runner.Warning(w)
	}
	var stacks []string
	if e.parts.Secrets.Assembly != nil {
		for _, s := range e.parts.Secrets.Assembly.Stacks {
			if s.ArtifactID != "" { // nested stacks are not targets
				stacks = append(stacks, s.Name)
			}
		}
	}
	if e.cfg.FromJSON == "" { // a saved report targets nothing
		if note := e.cfg.TargetNote(stacks); note != "" {
			e.parts.Runner.Warning(note)
		}
	}
	if w := e.cfg.UnreviewableDiff(); w != "" {
		e.parts.Runner.Warning(w)
	}
	if e.cfg.Command == config.CommandVerify && !e.cfg.CheckRun {
		e.parts.Runner.Warning("check-run is false: verify writes no cdkd merge queue check run, so a ruleset requiring it waits for one that never comes; only this job's own status says how the group stands")
	}
	if e.gh.MergeGroup != nil && e.cfg.Command == config.CommandDiff {
		e.parts.Runner.Warning("command diff on a merge_group event reports the group's diff but checks it against no review, and writes no cdkd merge queue check: run command: verify on merge_group (see docs/deploy.md, Merge queues)")
	}
}
