package config

import (
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
	c, err := Load(env(nil), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.Command, CommandDiff)
	assert.Equal(t, c.Comment, CommentUpdate)
	assert.Equal(t, c.StatePrefix, "cdkd")
	assert.Equal(t, c.CdkdPath, "cdkd")
	assert.Equal(t, c.WorkingDirectory, ".")
	assert.Equal(t, c.CheckRun, true)
	assert.Equal(t, c.ResolveSecrets, true)
	assert.Equal(t, c.FailOnChanges, false)
	// ${{ github.token }} is the runner's to evaluate: locally it is empty.
	assert.Equal(t, c.GitHubToken, "")
}

func TestLoadFromRunnerEnvironment(t *testing.T) {
	c, err := Load(env(map[string]string{
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
	c, err := Load(env(map[string]string{"INPUT_LABEL": "prod"}), []string{"--label=staging", "--local", "--all=true"})
	assert.NilError(t, err)
	assert.Equal(t, c.Label, "staging")
	assert.Equal(t, c.Local, true)
	assert.Equal(t, c.All, true)
}

func TestBooleanFlagsNeedNoValue(t *testing.T) {
	c, err := Load(env(nil), []string{"--all", "--local", "--fail-on-changes", "--check-run=false"})
	assert.NilError(t, err)
	assert.Equal(t, c.All, true)
	assert.Equal(t, c.Local, true)
	assert.Equal(t, c.FailOnChanges, true)
	assert.Equal(t, c.CheckRun, false)

	_, err = Load(env(nil), []string{"--label"})
	assert.Error(t, err, "input command line: -label needs a value (--name=value)")
}

func TestTokenFallsBackToGITHUB_TOKEN(t *testing.T) {
	c, err := Load(env(map[string]string{"GITHUB_TOKEN": "from-env"}), nil)
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
		{"command", map[string]string{"INPUT_COMMAND": "destroy"}, nil, `input command: expected diff, deploy, drift, plan or aggregate, got "destroy"`},
		{"bool", map[string]string{"INPUT_ALL": "yes"}, nil, `input all: expected true or false, got "yes"`},
		{"comment", map[string]string{"INPUT_COMMENT": "sticky"}, nil, `input comment: expected update, recreate or off, got "sticky"`},
		{"flag-like stack", map[string]string{"INPUT_STACKS": "--all"}, nil, `input stacks: stack names cannot start with '-', got "--all"`},
		{"stacks and all", map[string]string{"INPUT_STACKS": "A", "INPUT_ALL": "true"}, nil, "input stacks: set either stacks or all: true, not both"},
		{"context", map[string]string{"INPUT_CONTEXT": "novalue"}, nil, `input context: expected one key=value per line, got "novalue"`},
		{"from-json missing", map[string]string{"INPUT_FROM-JSON": filepath.Join(dir, "nope.json")}, nil, "input from-json: expected a file"},
		{"from-json with drift", map[string]string{"INPUT_FROM-JSON": file, "INPUT_COMMAND": "drift"}, nil, "input from-json: only works with command: diff"},
		{"working dir", map[string]string{"INPUT_WORKING-DIRECTORY": filepath.Join(dir, "missing")}, nil, "input working-directory: expected an existing directory"},
		{"mask-env", map[string]string{"INPUT_MASK-ENV": "NOT-A-NAME"}, nil, `input mask-env: expected environment variable names, got "NOT-A-NAME"`},
		{"role", map[string]string{"INPUT_ROLE-ARN": "deployer"}, nil, "input role-arn: expected an IAM role ARN"},
		{"app like a flag", map[string]string{"INPUT_APP": "--help"}, nil, `input app: expected an app command or a cloud assembly directory, got "--help" (it starts with '-')`},
		{"context like a flag", map[string]string{"INPUT_CONTEXT": "-k=v"}, nil, `input context: expected one key=value per line, got "-k=v"`},
		{"unknown flag", nil, []string{"--stackz=A"}, "input command line: -stackz is not an input of this action"},
		{"stray arg", nil, []string{"diff"}, `input command line: unexpected argument "diff"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(env(tc.env), tc.args)
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
	c, err := Load(env(map[string]string{
		"INPUT_COMMAND":             "drift",
		"INPUT_STACK-REGION":        "eu-west-1",
		"INPUT_ISSUE-LABELS":        "drift, infra\nops",
		"INPUT_DRIFT-RESOLUTION":    "revert",
		"INPUT_ALLOW-DESTROY-TYPES": "AWS::Lambda::Version, AWS::SNS::Topic",
		"INPUT_TIMEOUT-MINUTES":     "30",
	}), nil)
	assert.NilError(t, err)
	assert.Equal(t, c.StackRegion, "eu-west-1")
	assert.DeepEqual(t, c.IssueLabels, []string{"drift", "infra", "ops"})
	assert.Equal(t, c.DriftResolution, ResolutionRevert)
	assert.DeepEqual(t, c.AllowDestroyTypes, []string{"AWS::Lambda::Version", "AWS::SNS::Topic"})
	assert.Equal(t, c.Timeout.Minutes(), 30.0)
	assert.Equal(t, c.FailOnDrift, true)
	assert.Equal(t, c.FailOnIncomplete, true)
	assert.Equal(t, c.RequireReviewedDiff, true)
	assert.Equal(t, c.AllowDestructive, false)
	assert.Equal(t, c.DestructiveLabel, "cdkd:allow-destructive")

	for input, want := range map[string]string{
		"INPUT_DRIFT-RESOLUTION":    `input drift-resolution: expected none, accept or revert, got "fix"`,
		"INPUT_STACK-REGION":        `input stack-region: expected an AWS region such as us-east-1, got "fix"`,
		"INPUT_ALLOW-DESTROY-TYPES": `input allow-destroy-types: expected resource types such as AWS::Lambda::Version, got "fix"`,
		"INPUT_TIMEOUT-MINUTES":     `input timeout-minutes: expected a whole number of minutes from 0 to 1440, got "fix"`,
	} {
		_, err := Load(env(map[string]string{input: "fix"}), nil)
		assert.Error(t, err, want)
	}
}
