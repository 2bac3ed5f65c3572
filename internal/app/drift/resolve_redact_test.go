package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/redact"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// A resolution's report leaves resolveDrift redacted, whatever cdkd wrote
// into its failure lines, summary and errors: the stage runs on it once,
// before any reporter or sink sees it.
func TestResolutionReportIsRedacted(t *testing.T) {
	const secret = "resolution-secret-value-1"
	stub := cdkdtest.New(t,
		cdkdtest.Invocation{Args: []string{"drift", "--all", "--json", "--accept", "-y"},
			Stdout: "[]\n✗ StackA/Queue (AWS::SQS::Queue): update failed for " + secret + "\n✓ State updated for StackA: " + secret + "\n",
			Stderr: "Error: " + secret + "\n", Exit: 1},
		cdkdtest.Invocation{Args: []string{"drift", "--all", "--json"}, Stderr: "Error: cannot read " + secret + "\n", Exit: 1},
	)
	for _, kv := range stub.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	r := testRun(&out, config.Config{Command: config.CommandDrift, All: true, CdkdPath: stub.Path, WorkingDirectory: t.TempDir(),
		StatePrefix: "cdkd", DriftResolution: config.ResolutionAccept})
	r.Secrets.Set.Add(secret, "test")
	det := detection{drift: model.Drift{Stacks: []model.StackDrift{{Stack: "StackA", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "Queue", Type: "AWS::SQS::Queue"}, Changes: []model.DriftChange{{Path: "VisibilityTimeout"}}},
	}}}}}

	rr := r.resolveDrift(context.Background(), r.Cdkd.Runner(), &driftAWS{why: "test"}, det)
	r.Cdkd.Out.Close()
	b, err := json.Marshal(rr)
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(b), secret), string(b))
	assert.Assert(t, len(rr.Failed) > 0 && strings.Contains(rr.Failed[0].Line, secrets.Replacement), string(b))
	assert.Assert(t, rr.Error != "" && !strings.Contains(rr.Error, "\n"), "an error is one line: %q", rr.Error)
	assert.Assert(t, rr.AfterError != "" && !strings.Contains(rr.AfterError, "\n"), "an error is one line: %q", rr.AfterError)
	stub.AssertAllUsed(t)
}

// A revert learns what its own JSON holds at secret positions before its
// text is shown: a live NoEcho value that changed since the detection is
// hidden in cdkd's failure line, and its multi-line value's later lines,
// short ones included, are hidden by position in the plan.
func TestResolutionLearnsItsOwnJSON(t *testing.T) {
	const live = "live-noecho-changed-77"
	doc := `[{"stack":"StackA","region":"us-east-1","drifted":[{"logicalId":"NoEchoParam2FCCC8BD","type":"AWS::SSM::Parameter",` +
		`"changes":[{"path":"Value","stateValue":"hunter2-noecho-v1","awsValue":"` + live + `\nab"}],"referencesUnresolved":false}],` +
		`"clean":[],"notSupported":[],"skipped":[],"notCompared":[]}]` + "\n"
	plan := "\nPlan (--revert): push cdkd state values back into AWS for StackA (us-east-1):\n" +
		"  → provider.update on NoEchoParam2FCCC8BD (AWS::SSM::Parameter): revert 1 property path\n" +
		"    Value: " + live + "\nab -> hunter2-noecho-v1\n"
	stub := cdkdtest.New(t,
		cdkdtest.Invocation{ArgsContain: []string{"drift", "--revert", "--dry-run"}, Stdout: doc + plan},
		cdkdtest.Invocation{ArgsContain: []string{"drift", "--revert", "-y"},
			Stdout: doc + plan + "  ✗ StackA/NoEchoParam2FCCC8BD (AWS::SSM::Parameter): update failed: " + live + " rejected\n", Exit: 2},
		cdkdtest.Invocation{ArgsContain: []string{"drift", "--json"}, Stdout: "[]\n"},
	)
	for _, kv := range stub.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	asm, err := assembly.Load("../../../testdata/cdkd-samples/assembly-v1")
	assert.NilError(t, err)
	var out bytes.Buffer
	r := testRun(&out, config.Config{Command: config.CommandDrift, All: true, CdkdPath: stub.Path, WorkingDirectory: t.TempDir(),
		StatePrefix: "cdkd", DriftResolution: config.ResolutionRevert})
	r.Secrets.Assembly = asm
	det := detection{drift: model.Drift{Stacks: []model.StackDrift{{Stack: "StackA", Region: "us-east-1", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "NoEchoParam2FCCC8BD", Type: "AWS::SSM::Parameter"},
			Changes: []model.DriftChange{{Path: "Value", Secret: model.SecretNoEcho, State: model.HiddenValue(), AWS: model.HiddenValue()}}},
	}}}}}

	rr := r.resolveDrift(context.Background(), r.Cdkd.Runner(), &driftAWS{why: "test"}, det)
	r.Cdkd.Out.Close()
	b, err := json.Marshal(rr)
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(b)+out.String(), live), "%s\n%s", b, out.String())
	for _, text := range [][]string{rr.PlanText, rr.Output, strings.Split(out.String(), "\n")} {
		for _, l := range text {
			assert.Assert(t, strings.TrimSpace(l) != "ab" && !strings.HasPrefix(l, "ab "), "a continuation line shows: %q", text)
		}
	}
	assert.Assert(t, strings.Contains(strings.Join(rr.PlanText, "\n"), redact.HiddenPlanLine), rr.PlanText)
	stub.AssertAllUsed(t)
}
