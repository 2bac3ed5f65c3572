package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/plan"
)

// importedSecret is a NoEcho value Exporter exports and Importer imports
// (Fn::ImportValue, which cdkd resolves): its parameter has no default, so
// only Exporter's state knows it.
var importedSecret = leakSecret{"ImportedPw", "exported NoEcho value", "another stack's state, read through Fn::ImportValue", "imported-noecho-value-from-exporter-61"}

// writeCrossStackAssembly writes an app whose Importer reads what
// Exporter exports.
func writeCrossStackAssembly(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"manifest.json": `{"version":"55.0.0","artifacts":{
  "Exporter":{"type":"aws:cloudformation:stack","environment":"aws://000000000000/us-east-1","properties":{"templateFile":"Exporter.template.json"}},
  "Importer":{"type":"aws:cloudformation:stack","environment":"aws://000000000000/us-east-1","properties":{"templateFile":"Importer.template.json"},"dependencies":["Exporter"]}}}`,
		"Exporter.template.json": `{"Parameters":{"DbPw":{"Type":"String","NoEcho":true}},
 "Resources":{"Topic":{"Type":"AWS::SNS::Topic","Properties":{"DisplayName":"exporter"}}},
 "Outputs":{"ExportsOutputPw":{"Value":{"Ref":"DbPw"},"Export":{"Name":"Exporter:ExportsOutputPw"}}}}`,
		"Importer.template.json": `{"Resources":{"Fn":{"Type":"AWS::SSM::Parameter","Properties":{"Type":"String",
  "Value":{"Fn::Join":["",["db=",{"Fn::ImportValue":"Exporter:ExportsOutputPw"}]]}}}}}`,
	} {
		writeFile(t, filepath.Join(dir, name), body)
	}
	return dir
}

// crossStackDiffs are what cdkd diff prints per stack: Importer's change
// holds the imported value, resolved.
func crossStackDiffs(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	return map[string]json.RawMessage{
		"Exporter": json.RawMessage(jsJSON(t, map[string]any{"stack": "Exporter", "region": "us-east-1",
			"changes": []any{change("Topic", "AWS::SNS::Topic", prop("DisplayName", "exporter-old", "exporter"))}, "outputChanges": []any{}, "children": []any{}})),
		"Importer": json.RawMessage(jsJSON(t, map[string]any{"stack": "Importer", "region": "us-east-1",
			"changes": []any{change("Fn", "AWS::SSM::Parameter", prop("Value", "db=old", "db="+importedSecret.value))}, "outputChanges": []any{}, "children": []any{}})),
	}
}

// A shard holding only the importing stack, and the aggregate of the
// shards, post exactly what one run over all stacks does: the value
// another stack exports is hidden everywhere (the workspace checks every
// channel of every step for it).
func TestLeakShardCrossStackImport(t *testing.T) {
	f := startAWS(t)
	bucket := "xstack-" + unique(t)
	f.createBucket(t, bucket, map[string]string{
		"cdkd/Exporter/us-east-1/state.json": `{"version":12,"stackName":"Exporter","region":"us-east-1","resources":{},"outputs":{"ExportsOutputPw":"` + importedSecret.value + `"}}`,
		"cdkd/Importer/us-east-1/state.json": `{"version":12,"stackName":"Importer","region":"us-east-1","resources":{},"outputs":{}}`,
	})
	asm := writeCrossStackAssembly(t)
	perStack := crossStackDiffs(t)
	inputs := func(extra map[string]string) map[string]string {
		in := map[string]string{"app": asm, "state-bucket": bucket}
		for k, v := range extra {
			in[k] = v
		}
		return in
	}

	single := newWorkspace(t)
	single.useAWS(f)
	single.declare(importedSecret)
	inv := diffInvocation(t, shardDiff(t, perStack, []string{"Exporter", "Importer"}))
	inv.Args, inv.ArgsContain = nil, []string{"diff", "--all", "--json"}
	single.stub(inv)
	one := single.run(inputs(map[string]string{"all": "true"}))
	assert.Equal(t, one.code, 0, one.stdout)

	w := newWorkspace(t)
	w.useAWS(f)
	w.declare(importedSecret)
	planned := w.run(map[string]string{"command": "plan", "all": "true", "app": asm, "shards": "2"})
	assert.Equal(t, planned.code, 0, planned.stdout)
	var m plan.Matrix
	assert.NilError(t, json.Unmarshal([]byte(planned.outputs["matrix"]), &m))
	assert.Assert(t, is.Len(m.Shard, 2), "one stack per shard: %s", planned.outputs["matrix"])
	reports := filepath.Join(w.dir, "reports")
	for _, sh := range m.Shard {
		names := strings.Fields(sh.Stacks)
		inv := diffInvocation(t, shardDiff(t, perStack, names))
		inv.Args, inv.ArgsContain = nil, append(append([]string{"diff"}, names...), "--json")
		w.stub(inv)
		b, _ := json.Marshal(sh)
		res := w.run(inputs(map[string]string{"stacks": sh.Stacks, "publish": "false", "shard": string(b)}))
		assert.Equal(t, res.code, 0, res.stdout)
		dir := filepath.Join(reports, "cdkd-diff-"+sh.ID)
		assert.NilError(t, os.MkdirAll(dir, 0o755))
		writeFile(t, filepath.Join(dir, "diff.json"), readFile(t, res.outputs["report-json"]))
	}
	// The aggregate job, as README's example runs it: no assembly, the
	// diff role and the state bucket (for the fingerprint key).
	agg := w.run(map[string]string{"command": "aggregate", "reports": reports, "matrix": planned.outputs["matrix"], "state-bucket": bucket})
	assert.Equal(t, agg.code, 0, agg.stdout)

	oneBody := single.gh.Comments(owner, repo, prNum)[0].Body
	aggComments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(aggComments, 1))
	assert.Equal(t, strings.ReplaceAll(aggComments[0].Body, w.gh.URL, single.gh.URL), oneBody)
	assert.Equal(t, agg.outputs["digest"], one.outputs["digest"])
	assert.Assert(t, is.Contains(oneBody, "db=***"), oneBody)

	// An aggregate that cannot read the key cannot vouch for the shards'
	// tokens: it says so, and a deploy of it is refused.
	blind := w.run(map[string]string{"command": "aggregate", "reports": reports, "matrix": planned.outputs["matrix"]})
	assert.Equal(t, blind.code, 0, blind.stdout)
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(body, "(diff-unverifiable): no fingerprint key: no state bucket is known to keep it in"), body)
}
