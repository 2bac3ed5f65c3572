// Package cdkd runs the cdkd CLI and turns what it prints into cdkd-action's
// domain model: argv builders, process control (SIGINT on cancel so cdkd can
// release its lock, a bounded wait), decoding of cdkd's JSON, and the meaning
// of each command's exit codes.
package cdkd

import (
	"errors"
	"fmt"
	"strings"
)

// Common holds the flags most cdkd commands share. Each builder takes only the
// ones its command accepts.
type Common struct {
	// Stacks are positional stack selectors (physical names, display paths,
	// wildcards). Mutually exclusive with All.
	Stacks []string
	All    bool
	// App is `--app`: a command or a synthesized cloud assembly directory.
	App string
	// Context entries are "key=value", passed as `-c key=value`.
	Context     []string
	StateBucket string
	StatePrefix string
	RoleARN     string
}

// Drift resolutions accepted by DriftArgs.
const (
	ResolutionNone   = ""
	ResolutionAccept = "accept"
	ResolutionRevert = "revert"
)

// VersionArgs asks cdkd for its version.
func VersionArgs() []string { return []string{"--version"} }

// DiffArgs builds `cdkd diff ... --json --recursive`. It never passes --fail: the exit
// code would then mean two things, and the JSON already says what changed.
func DiffArgs(c Common) ([]string, error) {
	args := []string{"diff"}
	targets, err := c.targets()
	if err != nil {
		return nil, fmt.Errorf("build diff arguments: %w", err)
	}
	args = append(args, targets...)
	// --recursive: without it cdkd leaves nested stacks' changes out, and a
	// reviewer (and the deploy gate) would not see them.
	args = append(args, "--json", "--recursive")
	synth, err := c.synthFlags()
	if err != nil {
		return nil, fmt.Errorf("build diff arguments: %w", err)
	}
	args = append(args, synth...)
	return append(args, c.stateFlags()...), nil
}

// DriftArgs builds `cdkd drift ... --json`. Drift works from state alone, so
// App and Context are not passed; --verbose is never passed because it puts
// debug lines on stdout and breaks the JSON. A resolution adds -y because a
// CI job has no terminal to answer the prompt.
func DriftArgs(c Common, stackRegion, resolution string) ([]string, error) {
	args := []string{"drift"}
	targets, err := c.targets()
	if err != nil {
		return nil, fmt.Errorf("build drift arguments: %w", err)
	}
	args = append(args, targets...)
	args = append(args, "--json")
	if stackRegion != "" {
		if err := checkValue("stack region", stackRegion); err != nil {
			return nil, fmt.Errorf("build drift arguments: %w", err)
		}
		args = append(args, "--stack-region", stackRegion)
	}
	args = append(args, c.stateFlags()...)
	switch resolution {
	case ResolutionNone:
	case ResolutionAccept, ResolutionRevert:
		args = append(args, "--"+resolution, "-y")
	default:
		return nil, fmt.Errorf("build drift arguments: resolution %q is not one of accept, revert", resolution)
	}
	return args, nil
}

// DeployArgs builds `cdkd deploy ... -y`. Deploy has no JSON output; what
// happened is read from its exit code, its text and `cdkd events`.
func DeployArgs(c Common) ([]string, error) {
	args := []string{"deploy"}
	targets, err := c.targets()
	if err != nil {
		return nil, fmt.Errorf("build deploy arguments: %w", err)
	}
	args = append(args, targets...)
	if !c.All {
		// Named stacks (wildcards included) deploy exactly as named: cdkd
		// would otherwise deploy the stacks they depend on too, which the
		// diff (and so the review and the deploy gate) never showed.
		args = append(args, "--exclusively")
	}
	args = append(args, "-y")
	synth, err := c.synthFlags()
	if err != nil {
		return nil, fmt.Errorf("build deploy arguments: %w", err)
	}
	args = append(args, synth...)
	return append(args, c.stateFlags()...), nil
}

// EventsArgs builds `cdkd events <stack> --json`: the run listing, or with a
// run id that run's event stream. Stacks, All, App and Context are ignored.
func EventsArgs(stack, region, runID string, c Common) ([]string, error) {
	if err := CheckStack(stack); err != nil {
		return nil, fmt.Errorf("build events arguments: %w", err)
	}
	args := []string{"events", stack, "--json"}
	if runID != "" {
		if err := checkValue("run id", runID); err != nil {
			return nil, fmt.Errorf("build events arguments: %w", err)
		}
		args = append(args, "--run", runID)
	}
	if region != "" {
		if err := checkValue("stack region", region); err != nil {
			return nil, fmt.Errorf("build events arguments: %w", err)
		}
		args = append(args, "--stack-region", region)
	}
	return append(args, c.stateFlags()...), nil
}

// StateShowArgs builds `cdkd state show <stack> --json`. Stacks, All, App and
// Context are ignored.
func StateShowArgs(stack string, c Common) ([]string, error) {
	if err := CheckStack(stack); err != nil {
		return nil, fmt.Errorf("build state show arguments: %w", err)
	}
	args := []string{"state", "show", stack, "--json"}
	return append(args, c.stateFlags()...), nil
}

// CheckStack rejects a stack selector cdkd would misread. cdkd parses its
// command line with Commander.js, which would take "-x" as a flag, and an
// empty argument selects nothing.
func CheckStack(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("stack name is empty")
	}
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("stack name %q starts with '-', which cdkd would read as a flag", s)
	}
	return nil
}

func checkValue(what, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if strings.HasPrefix(v, "-") {
		return fmt.Errorf("%s %q starts with '-', which cdkd would read as a flag", what, v)
	}
	return nil
}

func (c Common) targets() ([]string, error) {
	if c.All {
		if len(c.Stacks) > 0 {
			return nil, fmt.Errorf("stacks %q and all are mutually exclusive", c.Stacks)
		}
		return []string{"--all"}, nil
	}
	for _, s := range c.Stacks {
		if err := CheckStack(s); err != nil {
			return nil, err
		}
	}
	return append([]string(nil), c.Stacks...), nil
}

func (c Common) synthFlags() ([]string, error) {
	var args []string
	if c.App != "" {
		if err := checkValue("app", c.App); err != nil {
			return nil, err
		}
		args = append(args, "--app", c.App)
	}
	for _, kv := range c.Context {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("context entry %q is not key=value", kv)
		}
		if strings.HasPrefix(kv, "-") {
			return nil, fmt.Errorf("context entry %q starts with '-', which cdkd would read as a flag", kv)
		}
		args = append(args, "-c", kv)
	}
	return args, nil
}

// stateFlags never fails: an empty value is simply not passed, and these
// values come after a flag that requires an argument.
func (c Common) stateFlags() []string {
	var args []string
	if c.StateBucket != "" {
		args = append(args, "--state-bucket", c.StateBucket)
	}
	if c.StatePrefix != "" {
		args = append(args, "--state-prefix", c.StatePrefix)
	}
	if c.RoleARN != "" {
		args = append(args, "--role-arn", c.RoleARN)
	}
	return args
}
