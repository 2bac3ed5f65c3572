package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/plan"
)

// scaleTestEnv turns on the long scale test (scripts/scale-test runs it;
// .ci/run calls that script on its own, outside go test ./...'s minute).
const scaleTestEnv = "CDKD_ACTION_SCALE_TEST"

// TestScaleGatedDeploy is a gated deploy of 2,000 stacks and 5,000 changes
// through plan → shards → aggregate → deploy, as the README's sharded
// workflow runs it: the review is too large for the comment (the change set
// is kept in the state bucket), and the deploy reads back 2,000 stacks. cdkd
// is a shell script answering from generated files (the stub's one-process
// per call with its scenario would dominate), and the state bucket is the
// AWS emulator. It prints each stage's time.
func TestScaleGatedDeploy(t *testing.T) {
	if os.Getenv(scaleTestEnv) == "" {
		t.Skip("long test: set " + scaleTestEnv + "=1 (scripts/scale-test)")
	}
	const stacks = 2000
	dir := t.TempDir()
	asm := filepath.Join(dir, "cdk.out")
	assert.NilError(t, os.Mkdir(asm, 0o755))
	assert.NilError(t, cdkdtest.WriteAssembly(asm, stacks, 3))
	// Per stack: Queue0000 created, Topic0001 renamed, and in the first
	// thousand Policy0002's document changed: 5,000 changes, none
	// destructive.
	perStack := map[string]string{}
	var all, deploy []string
	changes := 0
	for s := range stacks {
		name := fmt.Sprintf("Stack%02d", s)
		cs := []string{
			`{"logicalId":"Queue0000","changeType":"CREATE","resourceType":"AWS::SQS::Queue"}`,
			fmt.Sprintf(`{"logicalId":"Topic0001","changeType":"UPDATE","resourceType":"AWS::SNS::Topic","propertyChanges":[{"path":"DisplayName","oldValue":"topic-%d-old","newValue":"topic-1-new","requiresReplacement":false}]}`, s),
		}
		if s < 1000 {
			cs = append(cs, fmt.Sprintf(`{"logicalId":"Policy0002","changeType":"UPDATE","resourceType":"AWS::IAM::Policy","propertyChanges":[{"path":"PolicyDocument","oldValue":{"Version":"2012-10-17","Statement":[]},"newValue":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bucket-%d/*"}]},"requiresReplacement":false}]}`, s))
		}
		changes += len(cs)
		node := fmt.Sprintf(`{"stack":%q,"region":"us-east-1","changes":[%s],"outputChanges":[],"children":[]}`, name, strings.Join(cs, ","))
		perStack[name] = node
		all = append(all, node)
		deploy = append(deploy, fmt.Sprintf("Deploying stack: %s\n\nDeployment Summary:\n  Stack: %s\n  Created: 1\n  Updated: %d\n  Deleted: 0\n  Unchanged: 0\n  Duration: 0.01s\n\n✓ Deployment completed successfully\n", name, name, len(cs)-1))
	}
	assert.Equal(t, changes, 5000)
	files := filepath.Join(dir, "cdkd-files")
	assert.NilError(t, os.Mkdir(files, 0o755))
	writeFile(t, filepath.Join(files, "all.json"), "["+strings.Join(all, ",")+"]")
	writeFile(t, filepath.Join(files, "deploy.stdout"), "Synthesizing CDK app...\n\n"+strings.Join(deploy, "\n"))
	cdkd := fakeCdkd(t, dir, files)

	aws := startAWS(t)
	bucket := "scale-" + unique(t)
	aws.createBucket(t, bucket, nil)
	w := newDeployWorkspace(t, reviewedSHA)
	w.useAWS(aws)
	common := func(in map[string]string) map[string]string {
		in["cdkd-path"], in["app"], in["mask-values"] = cdkd, asm, maskValues
		return in
	}
	env := "CDKD_STATE_BUCKET=" + bucket
	started := time.Now()
	lap := func(stage string) {
		t.Logf("%-10s %6.1f s", stage, time.Since(started).Seconds())
		started = time.Now()
	}

	w.onPullRequest(reviewedSHA)
	planned := w.run(common(map[string]string{"command": "plan", "all": "true"}), env)
	assert.Equal(t, planned.code, 0, planned.stdout)
	var m plan.Matrix
	assert.NilError(t, json.Unmarshal([]byte(planned.outputs["matrix"]), &m))
	assert.Equal(t, len(m.Shard), 15, "6,000 resources: about one shard per 400")
	lap("plan")

	reports := filepath.Join(dir, "reports")
	for _, sh := range m.Shard {
		names := strings.Fields(sh.Stacks)
		nodes := make([]string, len(names))
		for i, n := range names {
			nodes[i] = perStack[n]
		}
		writeFile(t, filepath.Join(files, "shard-"+names[0]+".json"), "["+strings.Join(nodes, ",")+"]")
		b, _ := json.Marshal(sh)
		res := w.run(common(map[string]string{"stacks": sh.Stacks, "publish": "false", "shard": string(b)}), env)
		assert.Equal(t, res.code, 0, res.stdout)
		out := filepath.Join(reports, "cdkd-diff-"+sh.ID)
		assert.NilError(t, os.MkdirAll(out, 0o755))
		writeFile(t, filepath.Join(out, "diff.json"), readFile(t, res.outputs["report-json"]))
	}
	lap("shards")

	agg := w.run(common(map[string]string{"command": "aggregate", "reports": reports, "matrix": planned.outputs["matrix"]}), env)
	assert.Equal(t, agg.code, 0, agg.stdout)
	assert.Equal(t, agg.outputs["to-create"], "2000")
	assert.Assert(t, strings.HasPrefix(diffCheck(t, w.gh).ExternalID, "cdkd-action:v3:diff:stored:"), "the change set is kept in the state bucket")
	lap("aggregate")

	w.onPush()
	res := w.run(common(map[string]string{"command": "deploy", "all": "true"}), env)
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Equal(t, res.outputs["digest"], agg.outputs["digest"], "the deploy is the reviewed change set")
	lap("deploy")
}

// fakeCdkd writes a cdkd that answers from files: diff (all stacks, or a
// shard's, by its first stack), deploy, and the read-back calls.
func fakeCdkd(t *testing.T, dir, files string) string {
	t.Helper()
	path := filepath.Join(dir, "cdkd")
	script := `#!/bin/sh
files=` + files + `
case "$1" in
--version) echo 0.284.40 ;;
diff) if [ "$2" = "--all" ]; then cat "$files/all.json"; else cat "$files/shard-$2.json"; fi ;;
deploy) cat "$files/deploy.stdout" ;;
events) printf '{"stackName":"%s","region":"us-east-1","runs":[]}\n' "$2" ;;
state) printf '{"state":{"version":8,"region":"us-east-1","stackName":"%s","resources":{},"outputs":{},"lastModified":1},"lock":null}\n' "$3" ;;
*) echo "fake cdkd: unexpected $*" >&2; exit 1 ;;
esac
`
	assert.NilError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}
