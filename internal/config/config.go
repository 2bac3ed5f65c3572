// Package config turns the action's inputs (the runner's INPUT_* variables,
// action.yml's defaults and command-line flags) into a validated Config.
// Every rejection is one sentence naming the input and what it expects.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Command is what the action runs.
type Command string

const (
	CommandDiff   Command = "diff"
	CommandDeploy Command = "deploy"
	CommandDrift  Command = "drift"
	// CommandVerify checks a merge queue's group against the reviews of
	// its pull requests, as the deploy gate would, without deploying.
	CommandVerify Command = "verify"
)

// DefaultTrustedApp is the app GITHUB_TOKEN's check runs belong to, the
// trusted-app input's default.
const DefaultTrustedApp = "github-actions"

// CommentMode says how the sticky PR comment is written.
type CommentMode string

const (
	CommentUpdate   CommentMode = "update"
	CommentRecreate CommentMode = "recreate"
	CommentOff      CommentMode = "off"
)

// Config is everything one run needs to know from its inputs.
type Config struct {
	Command Command
	Stacks  []string
	All     bool
	App     string
	// BaseApp is the base branch's cloud assembly, the trusted source of
	// secret positions when App is one a pull request's author controls.
	BaseApp          string
	Context          []string // "key=value", each passed as -c
	WorkingDirectory string
	StateBucket      string
	StatePrefix      string
	RoleARN          string
	GitHubToken      string
	Comment          CommentMode
	Label            string
	CheckRun         bool
	// MergeQueue: the diff also writes the merge queue's required check on
	// the pull request's head.
	MergeQueue    bool
	FailOnChanges bool
	FromJSON      string
	// CdkdExitCode is the exit code of the cdkd drift run whose JSON
	// from-json holds; nil when not given (unknown).
	CdkdExitCode   *int
	CdkdPath       string
	CdkdVersion    string
	ResolveSecrets bool
	MaskValues     []string
	MaskEnv        []string

	// Fingerprints of secret values (see internal/secrets/fingerprint).
	Fingerprints      bool
	FingerprintKey    string
	FingerprintPrefix string

	// Drift.
	StackRegion      string
	Issue            bool
	IssueLabels      []string
	FailOnDrift      bool
	FailOnIncomplete bool
	DriftResolution  Resolution
	// AllowTokenOverwrite lets a revert overwrite a live value with a
	// token literal, which cdkd's plan warns about.
	AllowTokenOverwrite bool

	// Deploy.
	RequireReviewedDiff  bool
	AllowDestructive     bool
	DestructiveLabel     string
	AllowDestroyTypes    []string
	Environment          string
	EnvironmentURLOutput string
	Timeout              time.Duration // 0: no limit
	BotLogin             string
	// TrustedApp is the GitHub App (slug) whose check runs vouch for a
	// review; check runs with no app or another app never do.
	TrustedApp string

	// Approvals a deploy needs (approval.go).
	Approval

	// Plan, shard runs and aggregate.
	Sharding

	// Local renders Markdown to stdout and makes no API call.
	Local bool
	// CLI holds the command-line flags that are not inputs (see cli.go).
	CLI CLI
	// Set names the inputs given a value other than their default (INPUT_*
	// or a flag): an input set for a command that ignores it is warned of.
	// The runner sets every input, defaults applied, so a value equal to
	// the default cannot be told from none.
	Set map[string]bool
}

// Resolution is what `cdkd drift` does after detection.
type Resolution string

const (
	ResolutionNone   Resolution = "none"
	ResolutionAccept Resolution = "accept"
	ResolutionRevert Resolution = "revert"
)

// InputError is a bad input: which one and what was expected.
type InputError struct {
	Input string
	Msg   string
}

func (e *InputError) Error() string { return fmt.Sprintf("input %s: %s", e.Input, e.Msg) }

// IsInputError reports whether err is a bad-input error (exit code 2).
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

func bad(input, format string, args ...any) error {
	return &InputError{Input: input, Msg: fmt.Sprintf(format, args...)}
}

// Load reads inputs from the environment the runner prepares (INPUT_*),
// applies action.yml's defaults to absent ones, then lets command-line flags
// of the same names override them (`--stacks=A --local`). cs are the
// commands the binary offers (internal/app's table).
func Load(cs Commands, getenv func(string) string, args []string) (Config, error) {
	return LoadIn(cs, "", getenv, args)
}

// LoadIn is Load with the relative paths among the inputs (working-directory,
// from-json, --output, --outputs-file) taken against dir; "" is the
// process's working directory, as for Load.
func LoadIn(cs Commands, dir string, getenv func(string) string, args []string) (Config, error) {
	specs, err := Specs()
	if err != nil {
		return Config{}, err
	}
	first, args, err := cs.splitCommand(args)
	if err != nil {
		return Config{}, err
	}
	local := LocalRun(getenv, args)
	set := map[string]bool{}
	values := make(map[string]string, len(specs))
	defaults := make(map[string]string, len(specs))
	fs := flag.NewFlagSet("cdkd-action", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := make(map[string]*string, len(specs))
	for _, s := range specs {
		v, ok := lookup(getenv, s.Name, local)
		defaults[s.Name] = s.DefaultIn(local)
		if !ok {
			v = defaults[s.Name]
		}
		// The runner sets every declared input, its default applied: a
		// value equal to the default cannot be told from no value.
		set[s.Name] = ok && !sameValue(s, v, defaults[s.Name])
		values[s.Name] = v
		p := new(string)
		*p = v
		flags[s.Name] = p
		if s.Default == "true" || s.Default == "false" {
			// A boolean input is a boolean flag: --all means --all=true.
			fs.Var(boolFlag{p}, s.Name, s.Description)
		} else {
			fs.Var(stringFlag{p}, s.Name, s.Description)
		}
	}
	fs.Bool("local", false, localUsage)
	var cli CLI
	cliFlags(fs, &cli)
	if err := fs.Parse(args); err != nil {
		return Config{}, &InputError{Input: "command line", Msg: flagError(err)}
	}
	if fs.NArg() > 0 {
		return Config{}, &InputError{Input: "command line", Msg: fmt.Sprintf("unexpected argument %q; inputs are given as --name=value", fs.Arg(0))}
	}
	for name, p := range flags {
		values[name] = *p
	}
	commandFlag := false
	fs.Visit(func(f *flag.Flag) {
		if _, isInput := flags[f.Name]; isInput {
			set[f.Name] = !sameValue(specByName(specs, f.Name), values[f.Name], defaults[f.Name])
		}
		commandFlag = commandFlag || f.Name == "command"
	})
	if first != "" {
		if (set["command"] || commandFlag) && Command(strings.TrimSpace(values["command"])) != first {
			return Config{}, bad("command", "the first word says %s but --command says %s; give one", first, values["command"])
		}
		values["command"], set["command"] = string(first), true
	}

	c := Config{
		Command:              Command(strings.TrimSpace(values["command"])),
		Stacks:               strings.Fields(values["stacks"]),
		App:                  strings.TrimSpace(values["app"]),
		BaseApp:              strings.TrimSpace(values["base-app"]),
		WorkingDirectory:     strings.TrimSpace(values["working-directory"]),
		StateBucket:          strings.TrimSpace(values["state-bucket"]),
		StatePrefix:          strings.TrimSpace(values["state-prefix"]),
		RoleARN:              strings.TrimSpace(values["role-arn"]),
		GitHubToken:          strings.TrimSpace(values["github-token"]),
		Comment:              CommentMode(strings.TrimSpace(values["comment"])),
		Label:                strings.TrimSpace(values["label"]),
		FromJSON:             strings.TrimSpace(values["from-json"]),
		CdkdPath:             strings.TrimSpace(values["cdkd-path"]),
		CdkdVersion:          strings.TrimPrefix(strings.TrimSpace(values["cdkd-version"]), "v"),
		MaskValues:           lines(values["mask-values"]),
		MaskEnv:              strings.Fields(values["mask-env"]),
		StackRegion:          strings.TrimSpace(values["stack-region"]),
		IssueLabels:          labelList(values["issue-labels"]),
		DriftResolution:      Resolution(strings.TrimSpace(values["drift-resolution"])),
		DestructiveLabel:     strings.TrimSpace(values["destructive-label"]),
		AllowDestroyTypes:    splitList(values["allow-destroy-types"]),
		Environment:          strings.TrimSpace(values["environment"]),
		EnvironmentURLOutput: strings.TrimSpace(values["environment-url-output"]),
		BotLogin:             strings.TrimSpace(values["bot-login"]),
		FingerprintKey:       values["fingerprint-key"],
		FingerprintPrefix:    strings.Trim(strings.TrimSpace(values["fingerprint-prefix"]), "/"),
		Local:                local,
		CLI:                  cli,
		Set:                  set,
		TrustedApp:           strings.TrimSpace(values["trusted-app"]),
	}
	if c.GitHubToken == "" {
		c.GitHubToken = getenv("GITHUB_TOKEN")
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{
		{"all", &c.All}, {"check-run", &c.CheckRun}, {"fail-on-changes", &c.FailOnChanges},
		{"resolve-secrets", &c.ResolveSecrets}, {"issue", &c.Issue}, {"fail-on-drift", &c.FailOnDrift},
		{"fail-on-incomplete", &c.FailOnIncomplete}, {"require-reviewed-diff", &c.RequireReviewedDiff},
		{"allow-destructive", &c.AllowDestructive}, {"drift-allow-token-overwrite", &c.AllowTokenOverwrite},
		{"fingerprints", &c.Fingerprints}, {"merge-queue", &c.MergeQueue},
	} {
		v, err := ParseBool(b.name, values[b.name])
		if err != nil {
			return Config{}, err
		}
		*b.dst = v
	}
	if c.Context, err = parseContext(values["context"]); err != nil {
		return Config{}, err
	}
	if c.Timeout, err = parseMinutes("timeout-minutes", values["timeout-minutes"]); err != nil {
		return Config{}, err
	}
	if c.CdkdExitCode, err = parseExitCode(values["cdkd-exit-code"]); err != nil {
		return Config{}, err
	}
	if c.Approval, err = loadApproval(values); err != nil {
		return Config{}, err
	}
	if c.Sharding, err = loadSharding(cs, values); err != nil {
		return Config{}, err
	}
	if c.Shard != nil && len(c.Stacks) == 0 {
		c.Stacks = strings.Fields(c.Shard.Stacks)
	}
	c.within(dir)
	return c, c.validate(cs)
}

// parseExitCode reads cdkd-exit-code: empty (unknown), or one of the exit
// codes cdkd drift ends a report with.
func parseExitCode(v string) (*int, error) {
	switch v = strings.TrimSpace(v); v {
	case "":
		return nil, nil
	case "0", "1", "2":
		n := int(v[0] - '0')
		return &n, nil
	}
	return nil, bad("cdkd-exit-code", "expected the exit code cdkd drift ended with: 0, 1 or 2, got %q", v)
}

// within takes the relative paths among c's inputs against dir ("": as
// they are).
func (c *Config) within(dir string) {
	if dir == "" {
		return
	}
	for _, p := range []*string{&c.WorkingDirectory, &c.FromJSON, &c.CLI.Output, &c.CLI.OutputsFile, &c.CLI.ReportJSON} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
}

// stringFlag and boolFlag let flags override the values read from the
// environment; booleans are validated later, with the inputs.
type stringFlag struct{ p *string }

func (f stringFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}
func (f stringFlag) Set(v string) error { *f.p = v; return nil }

type boolFlag struct{ p *string }

func (f boolFlag) String() string     { return stringFlag(f).String() }
func (f boolFlag) Set(v string) error { *f.p = v; return nil }
func (f boolFlag) IsBoolFlag() bool   { return true }

// flagError rewords the flag package's errors as one sentence.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Sprintf("%s is not an input of this action (inputs are given as --name=value; --help lists them)", flagName(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("%s needs a value (--name=value)", flagName(name))
	}
	return msg
}

// sameValue reports whether v says what def says for input s: the same
// text, or the same boolean for a boolean input ("True" is "true").
func sameValue(s InputSpec, v, def string) bool {
	v, def = strings.TrimSpace(v), strings.TrimSpace(def)
	if v == def {
		return true
	}
	if s.Default == "true" || s.Default == "false" {
		a, errA := ParseBool(s.Name, v)
		b, errB := ParseBool(s.Name, def)
		return errA == nil && errB == nil && a == b
	}
	return false
}

func specByName(specs []InputSpec, name string) InputSpec {
	for _, s := range specs {
		if s.Name == name {
			return s
		}
	}
	return InputSpec{Name: name}
}

// ParseBool accepts YAML 1.2 core booleans, as the runner's inputs are.
func ParseBool(input, v string) (bool, error) {
	switch strings.TrimSpace(v) {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, bad(input, "expected true or false, got %q", v)
}

// labelList splits on commas and newlines only: a label may contain spaces.
func labelList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// splitList splits on commas, whitespace and newlines.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
}

func parseMinutes(input, v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	// A fraction is allowed ("0.5" is 30 seconds), as for a step's own
	// timeout-minutes.
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(n) || n < 0 || n > 24*60 {
		return 0, bad(input, "expected a number of minutes from 0 to 1440, got %q", v)
	}
	return time.Duration(n * float64(time.Minute)), nil
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func parseContext(s string) ([]string, error) {
	var out []string
	for _, l := range lines(s) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || !contextKey().MatchString(k) {
			return nil, bad("context", "expected one key=value per line, got %q", l)
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}
