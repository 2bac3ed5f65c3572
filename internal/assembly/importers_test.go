package assembly

import (
	"testing"

	"gotest.tools/v3/assert"
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
