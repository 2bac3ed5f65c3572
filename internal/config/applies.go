package config

import (
	"fmt"
	"slices"
	"strings"
)

// readBy names the commands that read an input; an input not listed here
// is read by every command. It is data, not derived from action.yml's
// prose: a description may still start with the commands it is for
// ("deploy, verify: …") for the reader, and TestReadByAgreesWithActionYAML
// holds the two together.
var readBy = map[string][]Command{
	"base-app":        {CommandDiff},
	"comment":         {CommandDiff},
	"fail-on-changes": {CommandDiff},
	"merge-queue":     {CommandDiff},
	// deploy reads from-json only to render a saved deploy report again.
	"from-json":                   {CommandDiff, CommandDrift, CommandDeploy},
	"cdkd-exit-code":              {CommandDrift},
	"stack-region":                {CommandDrift},
	"issue":                       {CommandDrift},
	"issue-labels":                {CommandDrift},
	"fail-on-drift":               {CommandDrift},
	"fail-on-incomplete":          {CommandDrift},
	"drift-resolution":            {CommandDrift},
	"drift-allow-token-overwrite": {CommandDrift},
	"require-reviewed-diff":       {CommandDeploy, CommandVerify},
	"allow-destructive":           {CommandDeploy, CommandVerify},
	"destructive-label":           {CommandDeploy, CommandVerify},
	"allow-destroy-types":         {CommandDeploy, CommandVerify},
	"require-approval":            {CommandDeploy, CommandVerify},
	"security-approval-label":     {CommandDeploy, CommandVerify},
	"required-approvals":          {CommandDeploy, CommandVerify},
	"approvers":                   {CommandDeploy, CommandVerify},
	"bot-login":                   {CommandDeploy, CommandVerify},
	"trusted-app":                 {CommandDeploy, CommandVerify},
	"environment":                 {CommandDeploy},
	"environment-url-output":      {CommandDeploy},
	"for":                         {CommandPlan, CommandAggregate},
	"shards":                      {CommandPlan},
	"shard":                       {CommandDiff, CommandDrift},
	"publish":                     {CommandDiff, CommandDrift},
	"reports":                     {CommandAggregate},
	"matrix":                      {CommandAggregate},
}

// appliesTo returns the commands that read the input, nil for all.
func appliesTo(s InputSpec) []Command {
	return slices.Clone(readBy[s.Name])
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
