package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A deploy reads back only what it deployed: a stack the change set leaves
// alone is not deployed, costs no cdkd call (each is a Node.js process of
// about 4 s and 390 MiB), and is reported unchanged.
func TestDeployReadsBackOnlyWhatChanged(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	var stacks []map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, "testdata/deploy/diff-safe.json")), &stacks))
	stacks[1]["changes"] = []any{} // StackB: nothing to do
	b, err := json.Marshal(stacks)
	assert.NilError(t, err)
	diff := filepath.Join(w.dir, "diff-stackA-only.json")
	writeFile(t, diff, string(b))
	stub := w.stub(gateDiff(t, diff), gateDiff(t, diff), deployInvocation(t, "StackA"),
		fileInvocation(t, "events-StackA.json", "events", "StackA", "--json"),
		fileInvocation(t, "events-StackA-run.json", "events", "StackA", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
		fileInvocation(t, "state-StackA.json", "state", "show", "StackA", "--json"))
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.code, 0, res.stdout)
	stub.AssertAllUsed(t)
	for _, c := range stub.Calls(t) {
		assert.Assert(t, !strings.Contains(strings.Join(c.Args, " "), "StackB"), "an unchanged stack is not read back: %v", c.Args)
	}
	var outs map[string]map[string]string
	assert.NilError(t, json.Unmarshal([]byte(res.outputs["stack-outputs"]), &outs))
	_, read := outs["StackB"]
	assert.Assert(t, !read, "StackB is not deployed, so its outputs are not read: %v", outs)
	assert.Assert(t, is.Contains(res.summary, "Unchanged: no changes in the reviewed change set, so not deployed."), res.summary)
}
