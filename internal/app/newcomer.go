package app

import (
	"github.com/cdkd-action/cdkd-action/internal/config"
)

// warnNewcomer warns of what a new user trips on and the run cannot
// refuse: INPUT_ variables a local run does not read as they hoped, and a
// stacks input the action has no list to check against.
func (e *Env) warnNewcomer() {
	if e.local {
		for _, w := range config.EnvironWarnings(e.app.environ()) {
			e.parts.Runner.Warning(w)
		}
	}
	if w := e.uncheckedStacks(); w != "" {
		e.parts.Runner.Warning(w)
	}
}

// uncheckedStacks says, when app is a command (or absent) rather than a
// synthesized cloud assembly, that the stacks patterns cannot be checked
// before cdkd synthesizes, and what cdkd then does with them.
func (e *Env) uncheckedStacks() string {
	if len(e.cfg.Stacks) == 0 || e.cfg.FromJSON != "" || e.parts.Secrets.Assembly != nil || e.cfg.Shard != nil {
		return ""
	}
	switch e.cfg.Command {
	case config.CommandDiff, config.CommandDeploy, config.CommandVerify:
	default:
		return ""
	}
	return "app is not a synthesized cloud assembly, so the stacks patterns are not checked before cdkd synthesizes: cdkd refuses patterns that together match no stack, " +
		"but leaves out without a word one that matches nothing when another matches; synthesize in an earlier step (`npx cdk synth -o cdk.out`, then app: cdk.out) to have each pattern checked"
}
