package app

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
	"github.com/cdkd-action/cdkd-action/internal/workflow"
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
	getenv := func(string) string { return "" }
	set := secrets.NewSet()
	set.Add(secret, "test")
	env := &Env{app: &App{Getenv: getenv}, local: true}
	env.set, env.out, env.outputs = set, secrets.NewLineWriter(&out, set), map[string]string{}
	env.runner, env.raw = workflow.New(env.out, getenv), workflow.New(&out, getenv)
	env.cfg = config.Config{Command: config.CommandDrift, All: true, CdkdPath: stub.Path, WorkingDirectory: t.TempDir(),
		StatePrefix: "cdkd", DriftResolution: config.ResolutionAccept}
	r := &driftRun{Env: env}
	det := detection{drift: model.Drift{Stacks: []model.StackDrift{{Stack: "StackA", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "Queue", Type: "AWS::SQS::Queue"}, Changes: []model.DriftChange{{Path: "VisibilityTimeout"}}},
	}}}}}

	rr := r.resolveDrift(context.Background(), r.cdkdRunner(), &driftAWS{why: "test"}, det)
	env.out.Close()
	b, err := json.Marshal(rr)
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(b), secret), string(b))
	assert.Assert(t, len(rr.Failed) > 0 && strings.Contains(rr.Failed[0].Line, secrets.Mask), string(b))
	assert.Assert(t, rr.Error != "" && !strings.Contains(rr.Error, "\n"), "an error is one line: %q", rr.Error)
	assert.Assert(t, rr.AfterError != "" && !strings.Contains(rr.AfterError, "\n"), "an error is one line: %q", rr.AfterError)
	stub.AssertAllUsed(t)
}
