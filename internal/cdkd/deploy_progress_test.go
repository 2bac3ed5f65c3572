package cdkd

import (
	"os"
	"testing"

	"gotest.tools/v3/assert"
)

// Real cdkd output: the v2 deploy of two stacks.
func TestDeployProgressReadsRealOutput(t *testing.T) {
	b, err := os.ReadFile("testdata/samples/71-deploy-v2-all.stdout")
	assert.NilError(t, err)
	got := DeployProgress(b)
	assert.DeepEqual(t, got, []StackProgress{
		{Stack: "StackA", Started: true, Created: 1, Updated: 3, Deleted: 1},
		{Stack: "StackB", Started: true, Updated: 1},
	})
}

func TestDeployProgressOfAStoppedDeploy(t *testing.T) {
	out := "Synthesizing CDK app...\n\nDeploying stack: StackA\nChanges: 1 to create, 0 to update, 0 to delete\n" +
		"Deploying 2 resource(s) (DAG: 1 levels, max parallel: 10)\n[1/2] ✓ Topic (AWS::SNS::Topic) created\n" +
		"\nDeploying stack: StackB\nChanges: 0 to create, 0 to update, 0 to delete\n"
	assert.DeepEqual(t, DeployProgress([]byte(out)), []StackProgress{
		{Stack: "StackA", Started: true, Created: 1},
		{Stack: "StackB"},
	})
}
