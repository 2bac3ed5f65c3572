package changeset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// selectionAssembly is Exporter (a queue whose URL and a topic whose ARN
// it exports), Importer (reads the URL, exports its own parameter's name),
// Chained (reads Importer's export), Steady (reads the topic's ARN) and
// Other (no imports).
func selectionAssembly(t *testing.T) *assembly.Assembly {
	t.Helper()
	dir := t.TempDir()
	artifacts := map[string]any{}
	write := func(name string, tpl map[string]any) {
		artifacts[name] = map[string]any{"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1",
			"properties": map[string]any{"templateFile": name + ".template.json"}}
		b, err := json.Marshal(tpl)
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name+".template.json"), b, 0o644))
	}
	param := func(v any) map[string]any {
		return map[string]any{"Type": "AWS::SSM::Parameter", "Properties": map[string]any{"Type": "String", "Value": v}}
	}
	export := func(v any, name string) map[string]any {
		return map[string]any{"Value": v, "Export": map[string]any{"Name": name}}
	}
	write("Exporter", map[string]any{
		"Resources": map[string]any{"Queue": map[string]any{"Type": "AWS::SQS::Queue"}, "Topic": map[string]any{"Type": "AWS::SNS::Topic"}},
		"Outputs": map[string]any{"QueueUrl": export(map[string]any{"Ref": "Queue"}, "QueueUrl"),
			"TopicArn": export(map[string]any{"Ref": "Topic"}, "TopicArn")}})
	write("Importer", map[string]any{
		"Resources": map[string]any{"P": param(map[string]any{"Fn::ImportValue": "QueueUrl"})},
		"Outputs":   map[string]any{"PName": export(map[string]any{"Ref": "P"}, "ImporterParam")}})
	write("Chained", map[string]any{"Resources": map[string]any{"P": param(map[string]any{"Fn::ImportValue": "ImporterParam"})}})
	write("Steady", map[string]any{"Resources": map[string]any{"P": param(map[string]any{"Fn::ImportValue": "TopicArn"})}})
	write("Other", map[string]any{"Resources": map[string]any{"P": param("v1")}})
	b, err := json.Marshal(map[string]any{"version": "36.0.0", "artifacts": artifacts})
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644))
	a, err := assembly.Load(dir)
	assert.NilError(t, err)
	return a
}

func TestSelect(t *testing.T) {
	asm := selectionAssembly(t)
	stacks := func(changed map[string][]model.ResourceChange, names ...string) model.Diff {
		var d model.Diff
		for _, n := range names {
			d.Stacks = append(d.Stacks, model.StackDiff{Stack: n, Region: "us-east-1", Changes: changed[n]})
		}
		return d
	}
	all := []string{"Chained", "Exporter", "Importer", "Other", "Steady"}
	replaced := map[string][]model.ResourceChange{"Exporter": {{LogicalID: "Queue", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SQS::Queue",
		PropertyChanges: []model.PropertyChange{{Path: "QueueName", RequiresReplacement: true}}}}}
	inPlace := map[string][]model.ResourceChange{"Exporter": {{LogicalID: "Queue", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SQS::Queue",
		PropertyChanges: []model.PropertyChange{{Path: "VisibilityTimeout"}}}}}
	other := map[string][]model.ResourceChange{"Other": {{LogicalID: "P", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SSM::Parameter",
		PropertyChanges: []model.PropertyChange{{Path: "Value"}}}}}
	for _, tc := range []struct {
		name             string
		diff             model.Diff
		want, with, out  []string
		names, notDeploy string
	}{
		{name: "nothing changes: nothing to deploy", diff: stacks(nil, all...)},
		{name: "one stack without exports changes: only it", diff: stacks(other, all...), want: []string{"Other"}},
		{name: "a Ref of an in-place update keeps its value: the exporter alone", diff: stacks(inPlace, all...), want: []string{"Exporter"}},
		{name: "a replaced queue's URL: its importer, and the importer of the importer's export, not the topic's",
			diff: stacks(replaced, all...), want: []string{"Chained", "Exporter", "Importer"},
			with:  []string{"Importer:QueueUrl:Exporter", "Chained:ImporterParam:Importer"},
			names: "Importer (imports `QueueUrl` from Exporter: it reads Queue, which is replaced)"},
		{name: "an importer the change set does not hold is not deployed, and said",
			diff: stacks(replaced, "Exporter", "Other"), want: []string{"Exporter"}, out: []string{"Importer:QueueUrl:Exporter"},
			notDeploy: "Not deployed, although an import takes a new value: Importer (imports `QueueUrl` from Exporter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel := Select(asm, tc.diff)
			assert.DeepEqual(t, sel.Stacks, tc.want)
			key := func(imps []Imported) []string {
				var out []string
				for _, i := range imps {
					out = append(out, i.Stack+":"+i.Export+":"+i.Exporter)
				}
				return out
			}
			assert.DeepEqual(t, key(sel.With), tc.with)
			assert.DeepEqual(t, key(sel.Outside), tc.out)
			assert.Assert(t, is.Contains(sel.Names(), tc.names))
			assert.Assert(t, is.Contains(sel.NotDeployed(), tc.notDeploy))
			assert.Equal(t, sel.Names() == "", len(tc.with) == 0)
		})
	}
	t.Run("a changed stack whose name is hidden cannot be named", func(t *testing.T) {
		d := stacks(map[string][]model.ResourceChange{"Db" + secrets.Replacement: other["Other"]}, "Db"+secrets.Replacement)
		assert.Assert(t, Select(asm, d).Unnamed != "")
	})
	t.Run("without an assembly, the changed stacks", func(t *testing.T) {
		assert.DeepEqual(t, Select(nil, stacks(replaced, all...)).Stacks, []string{"Exporter"})
	})
}
