package config

import "fmt"

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
