package config

import (
	"fmt"
	"slices"
	"strings"
)

// CommandSpec is what the inputs know of a command. The one table of
// commands is internal/app's (commands.go): an entry there is a
// CommandSpec, its help, what it needs and its Run; config is handed the
// specs (Commands) and reads nothing about a command from anywhere else.
type CommandSpec struct {
	Name Command
	// Inputs are the inputs it reads that not every command reads: an
	// input no command lists is read by every command. It is data, not
	// derived from action.yml's prose: a description may still start with
	// the commands it is for ("deploy, verify: …") for the reader, and a
	// test holds the two together.
	Inputs []string
	// Flags are the command-line flags (not inputs, without their dashes)
	// only the commands listing them read.
	Flags []string
	// Shardable: a plan can spread it over a matrix of shard runs (the
	// for input names it).
	Shardable bool
	// AsFor: it publishes what its shards ran, as the command its for
	// input names, and so reads that command's inputs too (aggregate).
	AsFor bool
	// NeedsGitHub, when set, says why the command cannot run outside a
	// workflow: a local run of it is refused with that sentence.
	NeedsGitHub string
}

// Commands are the commands the binary accepts, in the order messages and
// --help list them.
type Commands []CommandSpec

// Lookup finds the command named c.
func (cs Commands) Lookup(c Command) (CommandSpec, bool) {
	i := slices.IndexFunc(cs, func(s CommandSpec) bool { return s.Name == c })
	if i < 0 {
		return CommandSpec{}, false
	}
	return cs[i], true
}

// Names are the commands' names, in order.
func (cs Commands) Names() []Command {
	out := make([]Command, len(cs))
	for i, s := range cs {
		out[i] = s.Name
	}
	return out
}

// names joins the names of the commands that pass keep with sep, the
// last two with last ("diff, deploy or drift").
func (cs Commands) names(keep func(CommandSpec) bool, sep, last string) string {
	var out []string
	for _, s := range cs {
		if keep(s) {
			out = append(out, string(s.Name))
		}
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], sep) + last + out[len(out)-1]
}

func every(CommandSpec) bool { return true }

// list names every command, as messages print it: "diff, deploy,
// drift, plan or aggregate".
func (cs Commands) list() string { return cs.names(every, ", ", " or ") }

// shardable names the commands a plan can be for: "diff or drift".
func (cs Commands) shardable() string {
	return cs.names(func(s CommandSpec) bool { return s.Shardable }, ", ", " or ")
}

// readBy returns the commands that read the input, in table order; nil
// when every command reads it.
func (cs Commands) readBy(input string) []Command {
	var out []Command
	for _, s := range cs {
		if slices.Contains(s.Inputs, input) {
			out = append(out, s.Name)
		}
	}
	return out
}

// AppliesTo reports whether command c reads the input. A command that
// publishes as its for input's command (aggregate) reads the inputs of
// every command for may name.
func (cs Commands) AppliesTo(s InputSpec, c Command) bool {
	cmds := cs.readBy(s.Name)
	if cmds == nil || slices.Contains(cmds, c) {
		return true
	}
	spec, _ := cs.Lookup(c)
	return spec.AsFor && slices.ContainsFunc(cmds, func(x Command) bool {
		other, _ := cs.Lookup(x)
		return other.Shardable
	})
}

// FlagAppliesTo reports whether the flag means anything to command c: a
// flag no command lists is everyone's.
func (cs Commands) FlagAppliesTo(f CLIFlag, c Command) bool {
	name := strings.TrimPrefix(strings.Fields(f.Name)[0], "--")
	spec, _ := cs.Lookup(c)
	return slices.Contains(spec.Flags, name) || !slices.ContainsFunc(cs, func(s CommandSpec) bool { return slices.Contains(s.Flags, name) })
}

// HelpCommand is the command whose help was asked for
// (`cdkd-action diff --help`), "" for the help of the whole binary.
func (cs Commands) HelpCommand(args []string) Command {
	if len(args) > 0 {
		if _, ok := cs.Lookup(Command(args[0])); ok {
			return Command(args[0])
		}
	}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--command="); ok {
			if _, ok := cs.Lookup(Command(v)); ok {
				return Command(v)
			}
		}
	}
	return ""
}

// splitCommand takes the command given as the first word off args.
func (cs Commands) splitCommand(args []string) (Command, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", args, nil
	}
	c := Command(args[0])
	if _, ok := cs.Lookup(c); !ok {
		return "", nil, bad("command", "expected %s as the first word, got %q", cs.list(), args[0])
	}
	return c, args[1:], nil
}

// validateCommand refuses a command the table does not hold, and one that
// needs GitHub run locally.
func (cs Commands) validateCommand(c Config) error {
	spec, ok := cs.Lookup(c.Command)
	if !ok {
		return bad("command", "expected %s, got %q", cs.list(), c.Command)
	}
	if spec.NeedsGitHub != "" && c.Local {
		return bad("command", "%s", spec.NeedsGitHub)
	}
	return nil
}

// validateFlags refuses a flag given to a command that does not read it.
func (cs Commands) validateFlags(c Config) error {
	spec, _ := cs.Lookup(c.Command)
	for _, f := range []struct {
		name string
		on   bool
	}{{"dry-run", c.CLI.DryRun}, {"yes", c.CLI.Yes}} {
		if !f.on || slices.Contains(spec.Flags, f.name) {
			continue
		}
		readers := cs.names(func(s CommandSpec) bool { return slices.Contains(s.Flags, f.name) }, ", ", " and ")
		return bad("command line", "--%s only applies to %s, not %s", f.name, readers, c.Command)
	}
	return nil
}

// Ignored returns one warning per input given a value other than its
// default for a command that does not read it, in input order: a value that
// silently does nothing is a mistake the user should hear about. The runner
// passes every declared input with its default applied, so a value equal to
// the default is no sign the user gave one, and says nothing.
func (cs Commands) Ignored(c Config) []string {
	specs, err := Specs()
	if err != nil {
		return nil
	}
	spec, _ := cs.Lookup(c.Command)
	var out []string
	for _, s := range specs {
		cmds := cs.readBy(s.Name)
		// An aggregate publishes what its shards ran (for), so it reads
		// that command's inputs too.
		if !c.Set[s.Name] || cmds == nil || slices.Contains(cmds, c.Command) ||
			(spec.AsFor && slices.Contains(cmds, c.For)) {
			continue
		}
		names := make([]string, len(cmds))
		for i, x := range cmds {
			names[i] = string(x)
		}
		out = append(out, fmt.Sprintf("input %s is set but %s ignores it: it applies to %s only", s.Name, c.Command, strings.Join(names, " and ")))
	}
	return out
}
