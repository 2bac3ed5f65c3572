package config

import (
	"flag"
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
	// Yes confirms a local deploy.
	Yes bool
	// DryRun evaluates the deploy gate and prints the cdkd command it would
	// run, without running it.
	DryRun bool
}

// Commands are the first words the binary accepts (`cdkd-action diff --all`).
var Commands = []Command{CommandDiff, CommandDeploy, CommandDrift, CommandPlan, CommandAggregate}

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

// splitCommand takes the command given as the first word off args.
func splitCommand(args []string) (Command, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", args, nil
	}
	c := Command(args[0])
	if !slices.Contains(Commands, c) {
		return "", nil, bad("command", "expected diff, deploy or drift as the first word, got %q", args[0])
	}
	return c, args[1:], nil
}

// cliFlags registers the flags that are not inputs.
func cliFlags(fs *flag.FlagSet, c *CLI) {
	fs.StringVar(&c.Output, "output", "", "write the report (Markdown) to `FILE` instead of stdout")
	fs.StringVar(&c.OutputsFile, "outputs-file", "", "write the step outputs as JSON to `FILE`")
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
func (c Config) cliError() error {
	if c.Command != CommandDeploy && (c.CLI.Yes || c.CLI.DryRun) {
		name := "--yes"
		if c.CLI.DryRun {
			name = "--dry-run"
		}
		return bad("command line", "%s only applies to deploy, not %s", name, c.Command)
	}
	if c.CLI.Yes && c.CLI.DryRun {
		return bad("command line", "give either --yes (deploy) or --dry-run (show what would be deployed), not both")
	}
	if c.Local && c.Command == CommandDeploy && !c.CLI.Yes && !c.CLI.DryRun {
		return bad("command line", "a local deploy changes AWS resources: pass --yes to deploy, or --dry-run to see what the gate decides and the command it would run")
	}
	if c.CLI.Output != "" && c.CLI.Output == c.CLI.OutputsFile {
		return bad("command line", "--output and --outputs-file name the same file %q", c.CLI.Output)
	}
	return nil
}

// flagName gives a flag name with its two dashes, as messages print it.
func flagName(name string) string { return "--" + strings.TrimLeft(name, "-") }
