package config

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaultsFromActionYAML(t *testing.T) {
	c, err := Load(TableCommands, env(nil), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.Command, CommandDiff)
	assert.Equal(t, c.Comment, CommentUpdate)
	assert.Equal(t, c.StatePrefix, "cdkd")
	assert.Equal(t, c.CdkdPath, "", "empty: node_modules, then the bundled cdkd")
	assert.Equal(t, c.WorkingDirectory, ".")
	assert.Equal(t, c.CheckRun, true)
	assert.Equal(t, c.ResolveSecrets, false, "a local run makes no AWS call of its own unless asked")
	assert.Equal(t, c.FailOnChanges, false)
	// ${{ github.token }} is the runner's to evaluate: locally it is empty.
	assert.Equal(t, c.GitHubToken, "")
}

func TestLoadFromRunnerEnvironment(t *testing.T) {
	c, err := Load(TableCommands, env(map[string]string{
		"INPUT_STACKS":       "StackA\n  Stage/Api  StackB\n",
		"INPUT_CONTEXT":      "env=prod\n# a comment\n\nflag=a=b\n",
		"INPUT_GITHUB-TOKEN": "ghs_x",
		"INPUT_LABEL":        "prod",
		"INPUT_MASK-VALUES":  "one\n two \n",
		"INPUT_MASK-ENV":     "DB_PASSWORD API_KEY",
	}), nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, c.Stacks, []string{"StackA", "Stage/Api", "StackB"})
	assert.DeepEqual(t, c.Context, []string{"env=prod", "flag=a=b"})
	assert.Equal(t, c.GitHubToken, "ghs_x")
	assert.Equal(t, c.Label, "prod")
	assert.DeepEqual(t, c.MaskValues, []string{"one", " two "})
	assert.DeepEqual(t, c.MaskEnv, []string{"DB_PASSWORD", "API_KEY"})
}

func TestFlagsOverrideEnvironment(t *testing.T) {
	c, err := Load(TableCommands, env(map[string]string{"INPUT_LABEL": "prod"}), []string{"--label=staging", "--local", "--all=true"})
	assert.NilError(t, err)
	assert.Equal(t, c.Label, "staging")
	assert.Equal(t, c.Local, true)
	assert.Equal(t, c.All, true)
}

func TestBooleanFlagsNeedNoValue(t *testing.T) {
	c, err := Load(TableCommands, env(nil), []string{"--all", "--local", "--fail-on-changes", "--check-run=false"})
	assert.NilError(t, err)
	assert.Equal(t, c.All, true)
	assert.Equal(t, c.Local, true)
	assert.Equal(t, c.FailOnChanges, true)
	assert.Equal(t, c.CheckRun, false)

	_, err = Load(TableCommands, env(nil), []string{"--label"})
	assert.Error(t, err, "input command line: --label needs a value (--name=value)")
}

func TestTokenFallsBackToGITHUB_TOKEN(t *testing.T) {
	c, err := Load(TableCommands, env(map[string]string{"GITHUB_TOKEN": "from-env"}), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.GitHubToken, "from-env")
}

func TestBadInputsNameTheInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	assert.NilError(t, os.WriteFile(file, []byte("[]"), 0o600))
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"command", map[string]string{"INPUT_COMMAND": "destroy"}, nil, `input command: expected diff, deploy, verify, drift, plan or aggregate, got "destroy"`},
		{"bool", map[string]string{"INPUT_ALL": "yes"}, nil, `input all: expected true or false, got "yes"`},
		{"comment", map[string]string{"INPUT_COMMENT": "sticky"}, nil, `input comment: expected update, recreate or off, got "sticky"`},
		{"flag-like stack", map[string]string{"INPUT_STACKS": "--all"}, nil, `input stacks: stack names cannot start with '-', got "--all"`},
		{"stacks and all", map[string]string{"INPUT_STACKS": "A", "INPUT_ALL": "true"}, nil, "input stacks: set either stacks or all: true, not both"},
		{"context", map[string]string{"INPUT_CONTEXT": "novalue"}, nil, `input context: expected one key=value per line, got "novalue"`},
		{"from-json missing", map[string]string{"INPUT_FROM-JSON": filepath.Join(dir, "nope.json")}, nil, "input from-json: expected a file"},
		{"working dir", map[string]string{"INPUT_WORKING-DIRECTORY": filepath.Join(dir, "missing")}, nil, "input working-directory: expected an existing directory"},
		{"mask-env", map[string]string{"INPUT_MASK-ENV": "NOT-A-NAME"}, nil, `input mask-env: expected environment variable names, got "NOT-A-NAME"`},
		{"role", map[string]string{"INPUT_ROLE-ARN": "deployer"}, nil, "input role-arn: expected an IAM role ARN"},
		{"app like a flag", map[string]string{"INPUT_APP": "--help"}, nil, `input app: expected an app command or a cloud assembly directory, got "--help" (it starts with '-')`},
		{"context like a flag", map[string]string{"INPUT_CONTEXT": "-k=v"}, nil, `input context: expected one key=value per line, got "-k=v"`},
		{"unknown flag", nil, []string{"--stackz=A"}, "input command line: --stackz is not an input of this action"},
		{"stray arg", nil, []string{"diff", "extra"}, `input command line: unexpected argument "extra"`},
		{"unknown first word", nil, []string{"destroy"}, `input command: expected diff, deploy, verify, drift, plan or aggregate as the first word, got "destroy"`},
		{"first word and --command disagree", nil, []string{"drift", "--command=diff"}, "input command: the first word says drift but --command says diff"},
		{"local deploy unconfirmed", nil, []string{"deploy"}, "input command line: a local deploy changes AWS resources: pass --yes"},
		{"local verify", nil, []string{"verify"}, "input command: verify checks a merge queue's group against its pull requests' reviews on GitHub: run it in a workflow on merge_group, not locally"},
		{"verify from a saved diff", map[string]string{"GITHUB_ACTIONS": "true", "INPUT_COMMAND": "verify", "INPUT_FROM-JSON": "config_test.go"}, nil, "input from-json: verify runs cdkd diff on the group's head itself"},
		{"--yes on diff", nil, []string{"diff", "--yes"}, "input command line: --yes only applies to deploy, not diff"},
		{"cdkd-version", map[string]string{"INPUT_CDKD-VERSION": "latest"}, nil, `input cdkd-version: expected a cdkd release such as 0.284.40, got "latest"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(TableCommands, env(tc.env), tc.args)
			assert.Assert(t, err != nil)
			assert.Assert(t, IsInputError(err), "%v", err)
			assert.Assert(t, strings.HasPrefix(err.Error(), tc.want), "got %q", err.Error())
			assert.Assert(t, !strings.Contains(err.Error(), "\n"), "one sentence, one line: %q", err.Error())
		})
	}
}

func TestEveryInputHasADescription(t *testing.T) {
	specs, err := Specs()
	assert.NilError(t, err)
	assert.Assert(t, len(specs) > 10)
	for _, s := range specs {
		assert.Assert(t, strings.TrimSpace(s.Description) != "", "input %s has no description", s.Name)
		assert.Equal(t, s.Name, strings.ToLower(s.Name), "inputs are kebab-case")
	}
}

func TestDriftAndDeployInputs(t *testing.T) {
	c, err := Load(TableCommands, env(map[string]string{
		"INPUT_COMMAND":             "drift",
		"INPUT_STACK-REGION":        "eu-west-1",
		"INPUT_ISSUE-LABELS":        "drift, infra\nops",
		"INPUT_DRIFT-RESOLUTION":    "revert",
		"INPUT_ALLOW-DESTROY-TYPES": "AWS::Lambda::Version, AWS::SNS::Topic",
		"INPUT_TIMEOUT-MINUTES":     "30",
	}), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.StackRegion, "eu-west-1")
	allowed, err := Load(TableCommands, env(map[string]string{"INPUT_COMMAND": "drift", "INPUT_DRIFT-ALLOW-TOKEN-OVERWRITE": "true"}), nil)
	assert.NilError(t, err)
	assert.Equal(t, allowed.AllowTokenOverwrite, true)
	_, err = Load(TableCommands, env(map[string]string{"INPUT_COMMAND": "drift", "INPUT_DRIFT-ALLOW-TOKEN-OVERWRITE": "maybe"}), nil)
	assert.ErrorContains(t, err, "drift-allow-token-overwrite")
	assert.DeepEqual(t, c.IssueLabels, []string{"drift", "infra", "ops"})
	assert.Equal(t, c.DriftResolution, ResolutionRevert)
	assert.DeepEqual(t, c.AllowDestroyTypes, []string{"AWS::Lambda::Version", "AWS::SNS::Topic"})
	assert.Equal(t, c.Timeout.Minutes(), 30.0)
	assert.Equal(t, c.FailOnDrift, true)
	assert.Equal(t, c.FailOnIncomplete, true)
	assert.Equal(t, c.RequireReviewedDiff, true)
	assert.Equal(t, c.AllowDestructive, false)
	assert.Equal(t, c.AllowTokenOverwrite, false, "a revert never overwrites a live value with a token literal by default")
	assert.Equal(t, c.DestructiveLabel, "cdkd:allow-destructive")

	for input, want := range map[string]string{
		"INPUT_DRIFT-RESOLUTION":    `input drift-resolution: expected none, accept or revert, got "fix"`,
		"INPUT_STACK-REGION":        `input stack-region: expected an AWS region such as us-east-1, got "fix"`,
		"INPUT_ALLOW-DESTROY-TYPES": `input allow-destroy-types: expected resource types such as AWS::Lambda::Version, got "fix"`,
		"INPUT_TIMEOUT-MINUTES":     `input timeout-minutes: expected a number of minutes from 0 to 1440, got "fix"`,
	} {
		_, err := Load(TableCommands, env(map[string]string{input: "fix"}), nil)
		assert.Error(t, err, want)
	}
}

func TestResolveSecretsDefaultsDifferInsideARunner(t *testing.T) {
	inRunner := env(map[string]string{"GITHUB_ACTIONS": "true"})
	c, err := Load(TableCommands, inRunner, nil)
	assert.NilError(t, err)
	assert.Equal(t, c.ResolveSecrets, true, "action.yml's default inside a runner")
	c, err = Load(TableCommands, inRunner, []string{"--local"})
	assert.NilError(t, err)
	assert.Equal(t, c.ResolveSecrets, false, "--local is a local run")
	c, err = Load(TableCommands, env(nil), []string{"--resolve-secrets"})
	assert.NilError(t, err)
	assert.Equal(t, c.ResolveSecrets, true, "asked for explicitly")
}

func TestCommandAsFirstWord(t *testing.T) {
	c, err := Load(TableCommands, env(nil), []string{"drift", "--all"})
	assert.NilError(t, err)
	assert.Equal(t, c.Command, CommandDrift)
	assert.Equal(t, c.All, true)
	c, err = Load(TableCommands, env(nil), []string{"deploy", "--dry-run", "--output=r.md", "--outputs-file=o.json"})
	assert.NilError(t, err)
	assert.DeepEqual(t, c.CLI, CLI{DryRun: true, Output: "r.md", OutputsFile: "o.json"})
}

func TestIssueLabelsSplitOnCommasAndNewlinesOnly(t *testing.T) {
	c, err := Load(TableCommands, env(map[string]string{"INPUT_COMMAND": "drift", "INPUT_ISSUE-LABELS": "infra drift, ops\n needs triage ,\n"}), nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, c.IssueLabels, []string{"infra drift", "ops", "needs triage"})
}

func TestIgnoredInputsAreNamed(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"issue on diff", map[string]string{"INPUT_ISSUE": "true"}, nil, []string{"input issue is set but diff ignores it: it applies to drift only"}},
		{"environment on diff", nil, []string{"--environment=prod"}, []string{"input environment is set but diff ignores it: it applies to deploy only"}},
		{"comment on drift", map[string]string{"INPUT_COMMAND": "drift", "INPUT_COMMENT": "off"}, nil, []string{"input comment is set but drift ignores it: it applies to diff only"}},
		{"shards on diff", map[string]string{"INPUT_SHARDS": "3"}, nil, []string{"input shards is set but diff ignores it: it applies to plan only"}},
		{"comment on plan", map[string]string{"INPUT_COMMAND": "plan", "INPUT_COMMENT": "off"}, nil, []string{"input comment is set but plan ignores it: it applies to diff only"}},
		{"an aggregate reads its shards' command's inputs", map[string]string{"INPUT_COMMAND": "aggregate", "INPUT_FOR": "drift", "INPUT_ISSUE": "true", "INPUT_REPORTS": "r", "INPUT_MATRIX": "{}"}, nil, nil},
		{"shard on a drift", map[string]string{"INPUT_COMMAND": "drift", "INPUT_PUBLISH": "false"}, nil, nil},
		{"defaults are not warned of", nil, nil, nil},
		// The runner sets every declared input with its default applied.
		{"the runner's defaults on a deploy", runnerDefaults(t, map[string]string{"INPUT_COMMAND": "deploy"}), nil, nil},
		{"the runner's defaults on a drift", runnerDefaults(t, map[string]string{"INPUT_COMMAND": "drift"}), nil, nil},
		{"the runner's defaults on a plan", runnerDefaults(t, map[string]string{"INPUT_COMMAND": "plan"}), nil, nil},
		{"the runner's defaults on an aggregate", runnerDefaults(t, map[string]string{"INPUT_COMMAND": "aggregate", "INPUT_REPORTS": "r", "INPUT_MATRIX": "{}"}), nil, nil},
		{"a default spelt otherwise", map[string]string{"INPUT_COMMAND": "drift", "INPUT_CHECK-RUN": " True ", "INPUT_COMMENT": "update"}, nil, nil},
		{"a flag equal to the default", map[string]string{"INPUT_COMMAND": "drift"}, []string{"--comment=update", "--fail-on-changes=false"}, nil},
		{"a value other than the default", runnerDefaults(t, map[string]string{"INPUT_COMMAND": "deploy", "INPUT_COMMENT": "recreate"}), nil, []string{"input comment is set but deploy ignores it: it applies to diff only"}},
		{"an input for the command", map[string]string{"INPUT_COMMAND": "drift", "INPUT_ISSUE": "true"}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(TableCommands, env(tc.env), tc.args)
			assert.NilError(t, err)
			assert.DeepEqual(t, TableCommands.Ignored(c), tc.want)
		})
	}
}

// runnerDefaults is env with every other input action.yml declares set to
// its default, as the runner passes them.
func runnerDefaults(t *testing.T, env map[string]string) map[string]string {
	t.Helper()
	specs, err := Specs()
	assert.NilError(t, err)
	out := map[string]string{"GITHUB_ACTIONS": "true"}
	for _, s := range specs {
		out[envName(s.Name)] = s.Default
	}
	maps.Copy(out, env)
	return out
}

func TestTargetNoteAndUnreviewableDiff(t *testing.T) {
	c, err := Load(TableCommands, env(nil), nil)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(c.TargetNote(nil), "refuses an app with several"))
	assert.Equal(t, c.TargetNote([]string{"StackA"}), "stacks is empty and all is false: cdkd acts on the app's only stack, StackA")
	assert.Assert(t, strings.Contains(c.TargetNote([]string{"A", "B"}), "has 2 stacks, so cdkd will refuse"))
	c.All = true
	assert.Equal(t, c.TargetNote([]string{"A", "B"}), "")

	c, err = Load(TableCommands, env(map[string]string{"GITHUB_ACTIONS": "true", "INPUT_COMMENT": "off", "INPUT_CHECK-RUN": "false"}), nil)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(c.UnreviewableDiff(), "will refuse (no-reviewed-diff)"))
	c.CheckRun = true
	assert.Equal(t, c.UnreviewableDiff(), "")
}

func TestParseMeta(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want Meta
	}{
		{[]string{"--help"}, MetaHelp},
		{[]string{"diff", "-h"}, MetaHelp},
		{[]string{"help"}, MetaHelp},
		{[]string{"version"}, MetaVersion},
		{[]string{"drift", "--version"}, MetaVersion},
		{[]string{"diff", "--label", "help"}, MetaNone},
		{[]string{"--", "--help"}, MetaNone},
		{nil, MetaNone},
	} {
		assert.Equal(t, ParseMeta(tc.args), tc.want, "%q", tc.args)
	}
}

func TestTrustedApp(t *testing.T) {
	c, err := Load(TableCommands, env(map[string]string{"GITHUB_ACTIONS": "true", "INPUT_COMMAND": "deploy"}), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.TrustedApp, DefaultTrustedApp)
	c, err = Load(TableCommands, env(map[string]string{"GITHUB_ACTIONS": "true", "INPUT_COMMAND": "deploy", "INPUT_TRUSTED-APP": "my-deployer"}), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.TrustedApp, "my-deployer")
	_, err = Load(TableCommands, env(map[string]string{"GITHUB_ACTIONS": "true", "INPUT_COMMAND": "deploy", "INPUT_TRUSTED-APP": "my deployer[bot]"}), nil)
	assert.Error(t, err, `input trusted-app: expected the slug of the GitHub App whose diff check runs vouch for a review, such as github-actions, got "my deployer[bot]"`)
}

// LoadIn takes relative paths against its directory, not the process's
// working directory: an App run in-process has no chdir.
func TestLoadInTakesRelativePathsAgainstItsDirectory(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "infra"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "infra", "diff.json"), []byte("[]"), 0o644))
	in := env(map[string]string{"INPUT_WORKING-DIRECTORY": "infra", "INPUT_FROM-JSON": "infra/diff.json"})
	abs := filepath.Join(t.TempDir(), "outputs.json")
	c, err := LoadIn(TableCommands, dir, in, []string{"--output=report.md", "--outputs-file=" + abs})
	assert.NilError(t, err)
	assert.Equal(t, c.WorkingDirectory, filepath.Join(dir, "infra"))
	assert.Equal(t, c.FromJSON, filepath.Join(dir, "infra", "diff.json"))
	assert.Equal(t, c.CLI.Output, filepath.Join(dir, "report.md"))
	assert.Equal(t, c.CLI.OutputsFile, abs, "an absolute path stays")

	_, err = Load(TableCommands, in, nil)
	assert.ErrorContains(t, err, `input working-directory: expected an existing directory, got "infra"`, "Load keeps the process's directory")
}

// An app that names a path where nothing exists is a missing synth step
// (or a typo), not an app command for cdkd to fail on with
// "/bin/sh: 1: cdk.out: not found". A command, or a path that exists, is
// left alone.
func TestAppPathWithNothingThereIsRefused(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "cdk.out"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "cdk.out", "manifest.json"), []byte("{}"), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "empty.out"), 0o755))
	load := func(app string) error {
		_, err := LoadIn(TableCommands, dir, env(map[string]string{"INPUT_APP": app, "INPUT_WORKING-DIRECTORY": dir}), nil)
		return err
	}
	for _, app := range []string{"cdk.out", "./cdk.out", filepath.Join(dir, "cdk.out"), "npx cdk synth", "make", "node bin/app.js", "cdk.out.tmp && ./x", "$OUT", ""} {
		assert.NilError(t, load(app), "app %q", app)
	}
	for _, app := range []string{"cdk.uot", "./cdk.out/missing", "build/cdk.out", filepath.Join(dir, "gone")} {
		err := load(app)
		assert.Assert(t, IsInputError(err), "app %q: %v", app, err)
		assert.Assert(t, strings.HasPrefix(err.Error(), fmt.Sprintf("input app: nothing exists at %q (in working-directory %q): expected the cloud assembly a synth step writes before this one (such as `npx cdk synth -o %s`), or an app command", app, dir, app)), err.Error())
	}
	// A directory with no manifest: cdkd would fail with "manifest.json: ENOENT".
	err := load("empty.out")
	assert.Error(t, err, fmt.Sprintf("input app: \"empty.out\" (in working-directory %q) is a directory with no manifest.json: expected the cloud assembly a synth step writes (such as `npx cdk synth -o empty.out`), or an app command", dir))
}
