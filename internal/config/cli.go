package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CLI is what the command line asks of the binary beyond the inputs: where
// the report and the outputs go, and the confirmations a local deploy needs.
type CLI struct {
	// Output writes the report (Markdown) to this file instead of stdout.
	Output string
	// OutputsFile writes the step outputs as one JSON object, for CI
	// systems other than GitHub Actions.
	OutputsFile string
	// ReportJSON writes the report JSON (the report-json output) to this
	// file. A local run outside a workspace keeps no report JSON otherwise,
	// so it leaves nothing behind in the temporary folder.
	ReportJSON string
	// Yes confirms a local deploy.
	Yes bool
	// DryRun evaluates the deploy gate and prints the cdkd command it would
	// run, without running it.
	DryRun bool
}

// Meta is a request that needs no inputs at all: --help or --version.
type Meta int

const (
	MetaNone Meta = iota
	MetaHelp
	MetaVersion
)

// ParseMeta finds --help (-h) or --version among args, before any input is
// validated: both must work in a directory where nothing else would.
func ParseMeta(args []string) Meta {
	if len(args) > 0 { // as the first word, like a command
		switch args[0] {
		case "help":
			return MetaHelp
		case "version":
			return MetaVersion
		}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		switch a {
		case "--help", "-help", "-h":
			return MetaHelp
		case "--version", "-version":
			return MetaVersion
		}
	}
	return MetaNone
}

// DefaultIn is the input's default where the binary runs: a local run
// has its own defaults for some inputs (localDefaults).
func (s InputSpec) DefaultIn(local bool) string {
	if d, ok := localDefaults[s.Name]; ok && local {
		return d
	}
	return s.Default
}

// cliFlags registers the flags that are not inputs.
func cliFlags(fs *flag.FlagSet, c *CLI) {
	fs.StringVar(&c.Output, "output", "", "write the report (Markdown) to `FILE` instead of stdout")
	fs.StringVar(&c.OutputsFile, "outputs-file", "", "write the step outputs as JSON to `FILE`")
	fs.StringVar(&c.ReportJSON, "report-json", "", "write the report JSON (the report-json output) to `FILE`; a local run keeps none otherwise")
	fs.BoolVar(&c.Yes, "yes", false, "deploy: confirm a local deploy")
	fs.BoolVar(&c.DryRun, "dry-run", false, "deploy: show what the gate decides and the cdkd command, run nothing")
	// Handled before parsing (ParseMeta); declared so they are not unknown.
	fs.Bool("help", false, "show this help")
	fs.Bool("version", false, "print the action's version and the cdkd it would use")
}

// CLIFlag is one command-line flag that is not an input, for --help.
type CLIFlag struct{ Name, Usage string }

// CLIFlags lists the flags that are not inputs, --local included.
func CLIFlags() []CLIFlag {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	cliFlags(fs, &CLI{})
	fs.Bool("local", false, localUsage)
	var out []CLIFlag
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		n := "--" + f.Name
		if name != "" {
			n += " " + name
		}
		out = append(out, CLIFlag{Name: n, Usage: usage})
	})
	return out
}

const localUsage = "run as outside GitHub even inside a workflow: report on stdout, no API call"

// LocalRun reports whether the run is local: outside a runner, or --local
// given. It is known before the inputs are validated, so even an input
// error goes to the right stream.
func LocalRun(getenv func(string) string, args []string) bool {
	return getenv("GITHUB_ACTIONS") != "true" || slices.ContainsFunc(args, func(a string) bool {
		return a == "--local" || a == "-local" || a == "--local=true"
	})
}

// localDefaults are the inputs whose default differs outside a runner: a
// local run makes no network call of its own unless asked.
var localDefaults = map[string]string{"resolve-secrets": "false"}

// cliError checks the flags that are not inputs.
func (c Config) cliError(cs Commands) error {
	if err := cs.validateFlags(c); err != nil {
		return err
	}
	if c.CLI.Yes && c.CLI.DryRun {
		return bad("command line", "give either --yes (deploy) or --dry-run (show what would be deployed), not both")
	}
	if c.Local && c.Command == CommandDeploy && !c.CLI.Yes && !c.CLI.DryRun {
		return bad("command line", "a local deploy changes AWS resources: pass --yes to deploy, or --dry-run to see what the gate decides and the command it would run")
	}
	files := []struct{ flag, path string }{{"--output", c.CLI.Output}, {"--outputs-file", c.CLI.OutputsFile}, {"--report-json", c.CLI.ReportJSON}}
	for i, f := range files {
		if f.path == "" {
			continue
		}
		for _, g := range files[i+1:] {
			if g.path == f.path {
				return bad("command line", "%s and %s name the same file %q", f.flag, g.flag, f.path)
			}
		}
		if err := writableFile(f.path); err != nil {
			return bad("command line", "%s %s cannot be written: %v; expected a file in an existing directory", f.flag, f.path, err)
		}
	}
	return nil
}

// writableFile checks, before anything runs, that path can be written: its
// directory exists and it is not itself a directory. A report that could
// only be lost at the end is refused at the start.
func writableFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("it is a directory")
	}
	fi, err := os.Stat(filepath.Dir(path))
	switch {
	case err != nil:
		return fmt.Errorf("its directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", filepath.Dir(path))
	}
	return nil
}

// flagName gives a flag name with its two dashes, as messages print it.
func flagName(name string) string { return "--" + strings.TrimLeft(name, "-") }
