package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
)

// A gated deploy gives cdkd the stacks the reviewed change set changes,
// with the real cdkd against kumo: a one-stack change leaves the deployment
// history of every other stack untouched; an importer whose export takes a
// new value (its exporter's queue replaced) is named in the review and
// deployed with its exporter, and ends up holding the new value; a change
// of every stack deploys every stack. The history is cdkd's own record in
// the state bucket, one object per run under deployments/.
func TestRealCdkdDeploysOnlyChangedStacks(t *testing.T) {
	cli := realCdkd(t)
	e, u, bucket, _ := realWorld(t, "rc-sel-")
	const n = 3
	names := []string{"Exporter", "Importer", "S000", "S001", "S002"}
	w := newDeployWorkspace(t, reviewedSHA)
	w.useAWS(e)
	w.vars["INPUT_CDKD-PATH"] = cli
	runs := func() map[string]int {
		t.Helper()
		out := map[string]int{}
		for _, s := range names {
			l, err := e.s3().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("cdkd/" + s + "/us-east-1/deployments/")})
			assert.NilError(t, err)
			out[s] = int(aws.ToInt32(l.KeyCount))
		}
		return out
	}
	step := func(name string, in map[string]string) result {
		t.Helper()
		start := time.Now()
		s := w.newStep(in, nil)
		var log syncBuffer
		a := s.app(w.dir, &log, &log, nil)
		a.Deps.CdkdVersionTimeout = 10 * time.Minute // Node starts slowly on a loaded machine
		code := a.Run(context.Background())
		res := w.finish(s, log.String(), int(code))
		t.Logf("%s: exit %d in %s", name, res.code, time.Since(start).Round(time.Millisecond))
		return res
	}
	// review and deploy one pull request's app; it returns the diff
	// comment and the deploy.
	cycle := func(name, app string) (string, result) {
		t.Helper()
		w.onPullRequest(reviewedSHA)
		res := step(name+": diff", map[string]string{"all": "true", "app": app, "state-bucket": bucket})
		assert.Equal(t, res.code, 0, res.stdout)
		comments := w.gh.Comments(owner, repo, deployPR)
		assert.Assert(t, len(comments) > 0)
		w.onPush()
		dep := step(name+": gated deploy", map[string]string{"all": "true", "app": app, "state-bucket": bucket, "command": "deploy", "allow-destructive": "true"})
		assert.Equal(t, dep.code, 0, dep.stdout)
		assert.Equal(t, dep.outputs["deployed"], "true", dep.stdout)
		assert.Assert(t, is.Contains(dep.summary, "reviewed at `8888888`"), dep.summary)
		return comments[len(comments)-1].Body, dep
	}
	deployed := func(dep result) string {
		t.Helper()
		for _, l := range strings.Split(dep.stdout, "\n") {
			if c, ok := strings.CutPrefix(l, "::group::cdkd deploy "); ok {
				return c
			}
		}
		t.Fatalf("no cdkd deploy ran:\n%s", dep.stdout)
		return ""
	}
	grew := func(before, after map[string]int) []string {
		var out []string
		for _, s := range names {
			if after[s] > before[s] {
				out = append(out, s)
			}
		}
		return out
	}

	// The app as it is deployed: every stack once.
	first := exec.Command(cli, "deploy", "--all", "-y", "--app", selectionApp(t, u, n, 0, 1, 1), "--state-bucket", bucket)
	first.Dir, first.Env = w.dir, append(w.newStep(nil, nil).environ(), "CDKD_NO_LIVE=1")
	out, err := first.CombinedOutput()
	assert.NilError(t, err, "%s", out)
	urlOf := func(queue int) string { return fmt.Sprintf("rc%s-q-v%d", u, queue) }
	assert.Assert(t, is.Contains(e.ssmValue(t, "/rc"+u+"/queue-url"), urlOf(1)))

	// 1. One stack changes: only it is deployed; no other history moves.
	before := runs()
	_, dep := cycle("one stack", selectionApp(t, u, n, 1, 2, 1))
	assert.Assert(t, strings.HasPrefix(deployed(dep), "S000 --exclusively -y "), deployed(dep))
	assert.DeepEqual(t, grew(before, runs()), []string{"S000"})
	assert.Assert(t, is.Contains(dep.summary, "Unchanged: no changes in the reviewed change set, so not deployed."), dep.summary)

	// 2. The exporter's queue is replaced: the review names the importer
	// and the import, and the deploy gives the importer the new URL.
	before = runs()
	comment, dep := cycle("replaced export", selectionApp(t, u, n, 1, 2, 2))
	assert.Assert(t, is.Contains(comment, "Importer (imports <code>rc"+u+"-QueueUrl</code> from Exporter: it reads Queue, which is replaced)"), comment)
	assert.Assert(t, strings.HasPrefix(deployed(dep), "Exporter Importer --exclusively -y "), deployed(dep))
	assert.DeepEqual(t, grew(before, runs()), []string{"Exporter", "Importer"})
	assert.Assert(t, is.Contains(e.ssmValue(t, "/rc"+u+"/queue-url"), urlOf(2)), "the importer holds the replaced queue's URL")
	assert.Assert(t, is.Contains(dep.summary, "Importer"), dep.summary)

	// 3. Every stack changes: every stack deploys.
	before = runs()
	_, dep = cycle("every stack", selectionApp(t, u, n, n, 3, 3))
	assert.Assert(t, strings.HasPrefix(deployed(dep), "Exporter Importer S000 S001 S002 --exclusively -y "), deployed(dep))
	assert.DeepEqual(t, grew(before, runs()), names)
	assert.Assert(t, is.Contains(e.ssmValue(t, "/rc"+u+"/queue-url"), urlOf(3)))

	// 4. Nothing changes: no cdkd deploy starts.
	before = runs()
	w.onPush()
	dep = step("nothing", map[string]string{"all": "true", "app": selectionApp(t, u, n, n, 3, 3), "state-bucket": bucket, "command": "deploy", "require-reviewed-diff": "false"})
	assert.Equal(t, dep.code, 0, dep.stdout)
	assert.Assert(t, !strings.Contains(dep.stdout, "::group::cdkd deploy"), dep.stdout)
	assert.Assert(t, is.Contains(dep.summary, "Nothing to deploy"), dep.summary)
	assert.DeepEqual(t, grew(before, runs()), []string(nil))
	_ = cdkd.Package
}
