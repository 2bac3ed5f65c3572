package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/awsx"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
)

// captureEnv, when set to a directory, makes TestRealCdkdBucketReadBack
// write there what it compared: the bucket's objects (under objects/, by
// key) and cdkd's own answers (cdkd/), for internal/cdkd's tests.
const captureEnv = "CDKD_BUCKET_CAPTURE"

// cdkd.Bucket reads the state bucket directly where cdkd's state show,
// events and events --run would read it: this test is how a cdkd release
// is verified for it (cdkd's bucketLayoutReleases). The real cdkd deploys
// the app twice (a change, a deletion), then every direct read is compared
// with what cdkd itself prints for it.
func TestRealCdkdBucketReadBack(t *testing.T) {
	cli := realCdkd(t)
	e, u, bucket, _ := realWorld(t, "rc-readback-")
	v1, v2 := realAssembly(t, u, 1, "noecho-v1-"+u), realAssembly(t, u, 2, "noecho-v2-"+u)

	ctx := context.Background()
	env := append(os.Environ(), e.env()...)
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, cli, args...)
		cmd.Env = append(env, "CDKD_NO_LIVE=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		assert.NilError(t, cmd.Run(), "cdkd %s:\n%s", strings.Join(args, " "), stderr.String())
		return stdout.Bytes()
	}
	version := strings.TrimSpace(string(run("--version")))
	run("deploy", "--all", "-y", "--app", v1, "--state-bucket", bucket)
	run("deploy", "--all", "-y", "--app", v2, "--state-bucket", bucket)

	reader := awsx.StateReader{S3: awsx.NewS3(e.config())}
	b := cdkd.Bucket{Get: func(ctx context.Context, key string) ([]byte, error) { return reader.Object(ctx, bucket, key) }}
	capture := os.Getenv(captureEnv)
	save := func(dir, name string, body []byte) {
		if capture != "" {
			p := filepath.Join(capture, dir, filepath.FromSlash(name))
			assert.NilError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			assert.NilError(t, os.WriteFile(p, body, 0o644))
		}
	}
	object := func(key string) {
		raw, err := reader.Object(ctx, bucket, key)
		assert.NilError(t, err)
		assert.Assert(t, raw != nil, "no object %s", key)
		save("objects", key, raw)
	}
	const stack, region = "StackA", "us-east-1"
	flags := []string{"--state-bucket", bucket, "--json"}

	out := run(append([]string{"state", "show", stack}, flags...)...)
	save("cdkd", "state-show.json", out)
	object("cdkd/StackA/us-east-1/state.json")
	want, err := cdkd.DecodeStateShow(out)
	assert.NilError(t, err)
	got, err := b.State(ctx, stack, region)
	assert.NilError(t, err)
	assert.Equal(t, compact(t, got), compact(t, want.State), "state")

	out = run(append([]string{"events", stack}, flags...)...)
	save("cdkd", "events.json", out)
	object("cdkd/StackA/us-east-1/deployments/index.json")
	wantRuns, err := cdkd.DecodeRuns(out)
	assert.NilError(t, err)
	gotRuns, err := b.Runs(ctx, stack, region)
	assert.NilError(t, err)
	assert.DeepEqual(t, gotRuns, wantRuns)
	assert.Equal(t, len(wantRuns.Runs), 2, "two deploys, two runs")

	for _, r := range wantRuns.Runs {
		out := run(append([]string{"events", stack, "--run", r.RunID}, flags...)...)
		save("cdkd", "events-run-"+r.RunID+".json", out)
		object("cdkd/StackA/us-east-1/deployments/" + r.RunID + ".jsonl")
		want, err := cdkd.DecodeEvents(out)
		assert.NilError(t, err)
		got, err := b.RunEvents(ctx, stack, region, r.RunID)
		assert.NilError(t, err)
		assert.DeepEqual(t, got, want)
	}
	assert.Assert(t, cdkd.BucketLayoutKnown(version), "cdkd %s matched the layout: add it to bucketLayoutReleases", version)
	if capture != "" {
		save("cdkd", "version.txt", []byte(version+"\n"))
	}
}

// compact is v as compact JSON: a state record's raw property bags keep
// the indentation of where they were written, which is not a difference.
func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	return string(b)
}
