package deploy

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/app/gatecheck"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

func TestTargets(t *testing.T) {
	cur := &gate.Current{Diff: model.Diff{Stacks: []model.StackDiff{
		{Stack: "StackB", Region: "us-east-1"},
		{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "T", ChangeType: model.ChangeCreate}}},
		{Stack: "Stack-***", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "T", ChangeType: model.ChangeCreate}}},
	}}}
	summaries := []cdkd.StackSummary{{Stack: "StackA", Created: 1}, {Stack: "StackC", Updated: 2}}
	got := targets(cur, summaries)
	var names []string
	for _, tg := range got {
		names = append(names, tg.name+"/"+tg.region+"/"+map[bool]string{true: "changed", false: "quiet"}[tg.changed])
	}
	assert.DeepEqual(t, names, []string{"StackA/us-east-1/changed", "StackB/us-east-1/quiet", "StackC//changed"})
	assert.Equal(t, got[0].summary.Created, 1)
	assert.Assert(t, got[1].summary == nil)
	assert.Equal(t, got[2].summary.Updated, 2)
	assert.Assert(t, is.Len(targets(nil, nil), 0))
}

func TestLockMessage(t *testing.T) {
	l := cdkd.LockInfo{Stack: "StackA", Region: "us-east-1", Owner: "ci-job-42@runner-7", Operation: "deploy", ExpiresIn: "12m49s"}
	assert.Equal(t, lockMessage(l), "Stack StackA (us-east-1) is locked by ci-job-42@runner-7 (operation: deploy); the lock expires in 12m49s. "+
		"Nothing was deployed. If no job holds the lock any more, release it with `cdkd force-unlock StackA --stack-region us-east-1`.")
	assert.Equal(t, lockMessage(cdkd.LockInfo{Stack: "S", Region: "eu-west-1"}),
		"Stack S (eu-west-1) is locked. Nothing was deployed. If no job holds the lock any more, release it with `cdkd force-unlock S --stack-region eu-west-1`.")
}

func TestEnvironmentURL(t *testing.T) {
	o := testOptions(io.Discard, config.Config{})
	d := &run{Check: &gatecheck.Check{Opts: &o, Outputs: map[string]map[string]string{
		"Api": {"Url": "https://api.example.com", "Secret": "https://x/***"},
		"Web": {"Url": "https://www.example.com"},
	}}}
	for _, tc := range []struct{ input, want string }{
		{"Web.Url", "https://www.example.com"},
		{"Url", "https://api.example.com"}, // the first stack by name
		{"Api.Secret", ""},                 // hidden: no URL
		{"Nope", ""},
		{"", ""},
	} {
		o.Config.EnvironmentURLOutput = tc.input
		assert.Equal(t, d.environmentURL(), tc.want, tc.input)
	}
}

// timeout-minutes stops a hung deploy as a cancellation does (SIGINT, so
// cdkd can release its lock) but reports it as "timeout", not "cancelled":
// the job was not cancelled. (In minutes as an input; the run takes any
// duration: long enough for the gate's diff to finish on a loaded machine,
// so that what the timeout stops is the hung deploy.)
func TestDeployTimeout(t *testing.T) {
	stub := cdkdtest.New(t,
		cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"}, Stdout: `[{"stack":"StackA","region":"us-east-1","changes":[{"logicalId":"Topic","changeType":"CREATE","resourceType":"AWS::SNS::Topic"}],"outputChanges":[]}]`},
		cdkdtest.Invocation{Args: []string{"deploy", "StackA", "--exclusively", "-y"}, Stdout: "Deploying stack: StackA\n",
			StderrLines: []cdkdtest.Line{{Text: "hung", DelayMs: 120000}},
			OnSigint:    &cdkdtest.Sigint{Stdout: "Interrupted: released the lock\n", Exit: 1}},
	)
	for _, kv := range stub.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	o := testOptions(&out, config.Config{Command: config.CommandDeploy, All: true, CdkdPath: stub.Path, WorkingDirectory: t.TempDir(),
		StatePrefix: "cdkd", DestructiveLabel: "cdkd:allow-destructive", Timeout: 2 * time.Second})

	end := Run(context.Background(), o)
	o.Cdkd.Out.Close()
	said := out.String() + end.Message // App.Run prints the message as the error line
	assert.Equal(t, end.Code, reason.ExitFailure, said)
	assert.Equal(t, end.Reason, reason.Timeout)
	assert.Equal(t, o.Channels.Output("deployed"), "false")
	assert.Assert(t, is.Contains(said, "ran longer than timeout-minutes (2s) and was interrupted (SIGINT)"))
	assert.Assert(t, is.Contains(said, "cdkd said it released the lock of StackA"), "cdkd said so, and only then is it claimed")
	stub.AssertAllUsed(t)
}

// A change set that changes no stack starts no cdkd deploy (the stub
// fails on any call it was not given), says so, and reports each stack
// unchanged; a dry run says no cdkd deploy would run.
func TestEmptyChangeSetStartsNoDeploy(t *testing.T) {
	for _, dry := range []bool{false, true} {
		t.Run(map[bool]string{false: "deploy", true: "dry run"}[dry], func(t *testing.T) {
			stub := cdkdtest.New(t, cdkdtest.Invocation{Args: []string{"diff", "--all", "--json", "--recursive"},
				Stdout: `[{"stack":"StackA","region":"us-east-1","changes":[],"outputChanges":[]},{"stack":"StackB","region":"us-east-1","changes":[],"outputChanges":[]}]`})
			for _, kv := range stub.Env() {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			var out bytes.Buffer
			cfg := config.Config{Command: config.CommandDeploy, All: true, CdkdPath: stub.Path, WorkingDirectory: t.TempDir(),
				StatePrefix: "cdkd", DestructiveLabel: "cdkd:allow-destructive", Timeout: time.Minute}
			cfg.CLI.DryRun = dry
			o := testOptions(&out, cfg)
			end := Run(context.Background(), o)
			o.Cdkd.Out.Close()
			said := out.String()
			assert.Equal(t, end.Code, reason.ExitOK, said)
			stub.AssertAllUsed(t)
			for _, c := range stub.Calls(t) {
				assert.Assert(t, c.Args[0] != "deploy", "no cdkd deploy: %q", c.Args)
			}
			if dry {
				assert.Assert(t, is.Contains(said, "there is nothing to deploy"), said)
				return
			}
			assert.Assert(t, is.Contains(said, "Nothing to deploy: the change set changes no stack, so cdkd deploy did not run."), said)
			assert.Equal(t, o.Channels.Output("deployed"), "true")
			assert.Equal(t, strings.Count(said, "Unchanged: no changes in the reviewed change set, so not deployed."), 2, said)
		})
	}
}
