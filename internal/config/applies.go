package config

import (
	"fmt"
	"slices"
	"strings"
)

// onlyFor names the commands that read an input whose action.yml
// description does not say so with a "diff:", "deploy:" or "drift:" prefix.
// Inputs in neither place apply to every command.
var onlyFor = map[string][]Command{
	"comment":         {CommandDiff},
	"fail-on-changes": {CommandDiff},
	// deploy reads from-json only to render a saved deploy report again.
	"from-json": {CommandDiff, CommandDrift, CommandDeploy},
}

// appliesTo returns the commands that read the input, nil for all.
func appliesTo(s InputSpec) []Command {
	if cmds, ok := onlyFor[s.Name]; ok {
		return cmds
	}
	// A description may start with the commands it is for: "deploy: …",
	// "diff, drift: …".
	head, _, ok := strings.Cut(s.Description, ":")
	if !ok {
		return nil
	}
	var cmds []Command
	for _, w := range strings.Split(head, ",") {
		c := Command(strings.TrimSpace(w))
		if !slices.Contains(Commands, c) {
			return nil
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// Ignored returns one warning per input given a value other than its
// default for a command that does not read it, in input order: a value that
// silently does nothing is a mistake the user should hear about. The runner
// passes every declared input with its default applied, so a value equal to
// the default is no sign the user gave one, and says nothing.
func (c Config) Ignored() []string {
	specs, err := Specs()
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range specs {
		cmds := appliesTo(s)
		// An aggregate publishes what its shards ran (for), so it reads
		// that command's inputs too.
		if !c.Set[s.Name] || cmds == nil || slices.Contains(cmds, c.Command) ||
			(c.Command == CommandAggregate && slices.Contains(cmds, c.For)) {
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

// TargetNote says plainly what cdkd does when neither stacks nor all is
// given: it acts on the app's only stack and refuses an app with several.
// assemblyStacks are the stacks of the cloud assembly, when one is known.
func (c Config) TargetNote(assemblyStacks []string) string {
	if len(c.Stacks) > 0 || c.All {
		return ""
	}
	const fix = "set stacks (names, display paths or wildcards) or all: true"
	switch n := len(assemblyStacks); {
	case n == 1:
		return fmt.Sprintf("stacks is empty and all is false: cdkd acts on the app's only stack, %s", assemblyStacks[0])
	case n > 1:
		return fmt.Sprintf("stacks is empty and all is false: the cloud assembly has %d stacks, so cdkd will refuse to pick one; %s", n, fix)
	}
	return "stacks is empty and all is false: cdkd acts on the app's only stack and refuses an app with several; " + fix
}

// UnreviewableDiff warns about a diff that leaves no review behind: with
// no comment and no check run, a later gated deploy has nothing to compare
// with and refuses (no-reviewed-diff).
func (c Config) UnreviewableDiff() string {
	if c.Command != CommandDiff || c.Comment != CommentOff || c.CheckRun || c.Local {
		return ""
	}
	return "comment is off and check-run is false: this diff leaves no reviewed change set, so a later deploy with require-reviewed-diff: true will refuse (no-reviewed-diff)"
}
