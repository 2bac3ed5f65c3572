package cdkd

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestDiffArgs(t *testing.T) {
	tests := []struct {
		name string
		c    Common
		want []string
		err  string
	}{
		{name: "all", c: Common{All: true}, want: []string{"diff", "--all", "--json", "--recursive"}},
		{name: "auto-select single stack", c: Common{}, want: []string{"diff", "--json", "--recursive"}},
		{
			name: "every flag",
			c: Common{
				Stacks: []string{"StackA", "Stage/Api", "Prod*"}, App: "node app.js",
				Context: []string{"env=prod", "flag=a=b"}, StateBucket: "bkt", StatePrefix: "pfx", RoleARN: "arn:aws:iam::1:role/r",
			},
			want: []string{
				"diff", "StackA", "Stage/Api", "Prod*", "--json", "--recursive", "--app", "node app.js",
				"-c", "env=prod", "-c", "flag=a=b", "--state-bucket", "bkt", "--state-prefix", "pfx",
				"--role-arn", "arn:aws:iam::1:role/r",
			},
		},
		{name: "stack like a flag", c: Common{Stacks: []string{"--all"}}, err: `stack name "--all" starts with '-'`},
		{name: "empty stack", c: Common{Stacks: []string{" "}}, err: "stack name is empty"},
		{name: "stacks and all", c: Common{All: true, Stacks: []string{"A"}}, err: "mutually exclusive"},
		{name: "context without =", c: Common{All: true, Context: []string{"novalue"}}, err: `context entry "novalue" is not key=value`},
		{name: "context without key", c: Common{All: true, Context: []string{"=v"}}, err: "is not key=value"},
		{name: "context like a flag", c: Common{All: true, Context: []string{"-x=1"}}, err: "starts with '-'"},
		{name: "app like a flag", c: Common{All: true, App: "--help"}, err: `app "--help" starts with '-'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DiffArgs(tc.c)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestDriftArgs(t *testing.T) {
	tests := []struct {
		name       string
		c          Common
		region     string
		resolution string
		want       []string
		err        string
	}{
		{name: "all", c: Common{All: true}, want: []string{"drift", "--all", "--json"}},
		{
			name: "no app or context: drift does not synthesize",
			c:    Common{Stacks: []string{"StackA"}, App: "cdk.out", Context: []string{"a=b"}, StateBucket: "bkt", RoleARN: "arn:r"},
			want: []string{"drift", "StackA", "--json", "--state-bucket", "bkt", "--role-arn", "arn:r"},
		},
		{
			name: "region", c: Common{Stacks: []string{"StackA"}}, region: "us-west-2",
			want: []string{"drift", "StackA", "--json", "--stack-region", "us-west-2"},
		},
		{
			name: "accept", c: Common{Stacks: []string{"StackA"}}, resolution: ResolutionAccept,
			want: []string{"drift", "StackA", "--json", "--accept", "-y"},
		},
		{
			name: "revert", c: Common{All: true, StatePrefix: "p"}, resolution: ResolutionRevert,
			want: []string{"drift", "--all", "--json", "--state-prefix", "p", "--revert", "-y"},
		},
		{name: "unknown resolution", c: Common{All: true}, resolution: "fix", err: `resolution "fix"`},
		{name: "region like a flag", c: Common{All: true}, region: "-x", err: "stack region"},
		{name: "bad stack", c: Common{Stacks: []string{"-v"}}, err: "starts with '-'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DriftArgs(tc.c, tc.region, tc.resolution)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
			assert.Check(t, !contains(got, "--verbose"))
		})
	}
}

func TestDeployArgs(t *testing.T) {
	tests := []struct {
		name string
		c    Common
		want []string
		err  string
	}{
		{name: "all", c: Common{All: true}, want: []string{"deploy", "--all", "-y"}},
		{
			name: "stacks and flags",
			c:    Common{Stacks: []string{"A", "B"}, App: "cdk.out", Context: []string{"k=v"}, StateBucket: "b", RoleARN: "arn:r"},
			want: []string{"deploy", "A", "B", "--exclusively", "-y", "--app", "cdk.out", "-c", "k=v", "--state-bucket", "b", "--role-arn", "arn:r"},
		},
		{name: "bad stack", c: Common{Stacks: []string{"-rf"}}, err: "starts with '-'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DeployArgs(tc.c)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

func TestEventsAndStateShowArgs(t *testing.T) {
	c := Common{All: true, Stacks: nil, App: "ignored", StateBucket: "b", StatePrefix: "p", RoleARN: "arn:r"}
	tests := []struct {
		name string
		got  func() ([]string, error)
		want []string
		err  string
	}{
		{
			name: "run listing",
			got:  func() ([]string, error) { return EventsArgs("StackA", "", "", Common{}) },
			want: []string{"events", "StackA", "--json"},
		},
		{
			name: "one run, region, state flags",
			got:  func() ([]string, error) { return EventsArgs("StackA", "us-east-1", "run-1", c) },
			want: []string{"events", "StackA", "--json", "--run", "run-1", "--stack-region", "us-east-1", "--state-bucket", "b", "--state-prefix", "p", "--role-arn", "arn:r"},
		},
		{
			name: "events bad stack",
			got:  func() ([]string, error) { return EventsArgs("-x", "", "", Common{}) },
			err:  "starts with '-'",
		},
		{
			name: "events bad run",
			got:  func() ([]string, error) { return EventsArgs("S", "", "--all", Common{}) },
			err:  "run id",
		},
		{
			name: "state show",
			got:  func() ([]string, error) { return StateShowArgs("StackA", c) },
			want: []string{"state", "show", "StackA", "--json", "--state-bucket", "b", "--state-prefix", "p", "--role-arn", "arn:r"},
		},
		{
			name: "state show empty stack",
			got:  func() ([]string, error) { return StateShowArgs("", c) },
			err:  "stack name is empty",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, got, tc.want)
		})
	}
	assert.Check(t, is.DeepEqual(VersionArgs(), []string{"--version"}))
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
