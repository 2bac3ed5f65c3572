package assembly

import (
	"fmt"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestImporters(t *testing.T) {
	a := &Assembly{Stacks: []Stack{
		{Name: "Api", Region: "us-east-1", Imports: []string{"QueueUrl", "TableName"}},
		{Name: "Base", Region: "us-east-1", Outputs: []Output{{Name: "Q", Exported: true, Export: "QueueUrl"}, {Name: "X", Exported: true}, {Name: "Plain"}}},
		{Name: "Web", Region: "us-east-1", ImportsUnknown: true},
		{Name: "Worker", Region: "us-east-1", Imports: []string{"QueueUrl"}},
	}}
	for _, tc := range []struct {
		name    string
		exports []string
		want    []string
	}{
		{name: "none asked", exports: nil, want: nil},
		{name: "one export, two importers and one that could import anything", exports: []string{"QueueUrl"},
			want: []string{"Api:QueueUrl", "Web:", "Worker:QueueUrl"}},
		{name: "two exports of one importer", exports: []string{"TableName", "QueueUrl"},
			want: []string{"Api:QueueUrl", "Api:TableName", "Web:", "Worker:QueueUrl"}},
		{name: "an export nobody imports by name", exports: []string{"Other"}, want: []string{"Web:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, i := range a.Importers(tc.exports) {
				got = append(got, i.Stack.Name+":"+i.Export)
			}
			assert.DeepEqual(t, got, tc.want)
		})
	}
	names, unspelled := a.Exports()
	assert.DeepEqual(t, names, []string{"QueueUrl"})
	assert.Assert(t, unspelled, "Base's X has an export whose name is not known before deploying")
}

// Which imports take a new value when a change set deploys: an export
// that reads a replaced, created or deleted resource, an attribute of an
// updated one, or whose output cdkd shows changed; never one that Refs a
// resource updated in place, nor an export nobody changes.
func TestNewValueImports(t *testing.T) {
	const base = `{
	  "Resources": {
	    "Queue": {"Type": "AWS::SQS::Queue"},
	    "Table": {"Type": "AWS::DynamoDB::Table"},
	    "Fn": {"Type": "AWS::Lambda::Function"}
	  },
	  "Outputs": {
	    "QueueUrl": {"Value": {"Ref": "Queue"}, "Export": {"Name": "Base-QueueUrl"}},
	    "TableArn": {"Value": {"Fn::GetAtt": ["Table", "Arn"]}, "Export": {"Name": {"Fn::Sub": "${AWS::StackName}-TableArn"}}},
	    "FnArn": {"Value": {"Fn::Sub": "${Fn.Arn}"}, "Export": {"Name": "Base-FnArn"}},
	    "Plain": {"Value": "fixed", "Export": {"Name": "Base-Plain"}},
	    "NotExported": {"Value": {"Ref": "Queue"}}
	  }
	}`
	imports := func(names ...string) string {
		res := ""
		for i, n := range names {
			if i > 0 {
				res += ","
			}
			res += fmt.Sprintf(`"P%d": {"Type": "AWS::SSM::Parameter", "Properties": {"Value": {"Fn::ImportValue": %q}}}`, i, n)
		}
		return `{"Resources": {` + res + `}}`
	}
	dir := fs.NewDir(t, "asm",
		fs.WithFile("manifest.json", `{"artifacts": {
		  "Base": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Base.template.json"}},
		  "Web": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Web.template.json"}},
		  "Jobs": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Jobs.template.json"}},
		  "Static": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Static.template.json"}}}}`),
		fs.WithFile("Base.template.json", base),
		fs.WithFile("Web.template.json", imports("Base-QueueUrl", "Base-TableArn")),
		fs.WithFile("Jobs.template.json", imports("Base-FnArn")),
		fs.WithFile("Static.template.json", imports("Base-Plain")))
	a, err := Load(dir.Path())
	assert.NilError(t, err)
	change := func(id string, ct model.ChangeType, replace bool) model.ResourceChange {
		c := model.ResourceChange{LogicalID: id, ChangeType: ct, ResourceType: "AWS::X::Y"}
		if ct == model.ChangeUpdate {
			c.PropertyChanges = []model.PropertyChange{{Path: "P", RequiresReplacement: replace}}
		}
		return c
	}
	stack := func(changes []model.ResourceChange, outputs ...model.OutputChange) model.Diff {
		return model.Diff{Stacks: []model.StackDiff{{Stack: "Base", Region: "us-east-1", Changes: changes, OutputChanges: outputs},
			{Stack: "Web", Region: "us-east-1"}, {Stack: "Jobs", Region: "us-east-1"}, {Stack: "Static", Region: "us-east-1"}}}
	}
	for _, tc := range []struct {
		name string
		d    model.Diff
		want []string
	}{
		{name: "a replaced queue's URL", d: stack([]model.ResourceChange{change("Queue", model.ChangeUpdate, true)}),
			want: []string{"Web imports Base-QueueUrl from Base: it reads Queue, which is replaced"}},
		{name: "an in-place update keeps a Ref", d: stack([]model.ResourceChange{change("Queue", model.ChangeUpdate, false)})},
		{name: "an in-place update may change an attribute", d: stack([]model.ResourceChange{change("Table", model.ChangeUpdate, false), change("Fn", model.ChangeUpdate, false)}),
			want: []string{"Jobs imports Base-FnArn from Base: it reads an attribute of Fn, which is updated",
				"Web imports Base-TableArn from Base: it reads an attribute of Table, which is updated"}},
		{name: "an output cdkd shows changed", d: stack(nil, model.OutputChange{Name: "Base-Plain", ChangeType: model.OutputModify, Export: true}),
			want: []string{"Static imports Base-Plain from Base: cdkd's diff shows output Plain changed"}},
		{name: "nothing exported changes", d: stack([]model.ResourceChange{change("Other", model.ChangeCreate, false)})},
		{name: "no change at all", d: stack(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.NewValueImports(tc.d)
			assert.NilError(t, err)
			var lines []string
			for _, i := range got {
				lines = append(lines, fmt.Sprintf("%s imports %s from %s: %s", i.Importer.Name, i.Export, i.Exporter, i.Because))
			}
			assert.DeepEqual(t, lines, tc.want)
		})
	}
}
