package cdkd

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A deploy printing far more than the bound keeps what its report reads
// (every stack's Deployment Summary and Outputs, progress, lock lines)
// and the end of the rest; the rest is left out, once marked.
func TestDeployStdoutIsBounded(t *testing.T) {
	summary := func(stack string) string {
		return "Deploying stack: " + stack + "\n[1/1] ✓ Topic (AWS::SNS::Topic) created\n\nDeployment Summary:\n  Stack: " + stack +
			"\n  Created: 1\n  Updated: 0\n  Deleted: 0\n  Unchanged: 2\n  Duration: 0.1s\n\nOutputs:\n  " + stack + ".Url = https://" + stack + "\n\n"
	}
	script := shellCdkd(t, "printf '%s' '"+summary("StackA")+"'\n"+
		"yes 'a progress line of no interest to the report' | head -n 100000\n"+
		"printf '%s' '"+summary("StackB")+"'\n"+
		"echo 'Force-quit: stack lock may not be released. If the next run reports a lock, run: cdkd force-unlock StackB --stack-region us-east-1'\n"+
		"yes 'more noise' | head -n 100000\necho 'the last line'\n")

	r := &Runner{Path: script, StdoutTail: 64 << 10}
	res, err := r.Run(context.Background(), "deploy", "--all", "-y")
	assert.NilError(t, err)
	assert.Assert(t, len(res.Stdout) < 128<<10, "kept %d bytes of about 6 MB", len(res.Stdout))
	out := string(res.Stdout)
	assert.Check(t, strings.HasSuffix(out, "the last line\n"), "the end is kept")
	assert.Check(t, is.Equal(strings.Count(out, elisionLine), 2), "each gap is marked once")
	assert.Check(t, is.Contains(out, "stack lock may not be released"))

	run := ClassifyDeploy(res)
	assert.Assert(t, is.Len(run.Summaries, 2))
	for _, s := range run.Summaries {
		assert.Check(t, is.Equal(s.Created, 1))
		assert.Check(t, is.DeepEqual(s.Outputs, map[string]string{"Url": "https://" + s.Stack}))
	}
}

// Without a bound (JSON commands), stdout is kept whole.
func TestStdoutUnboundedByDefault(t *testing.T) {
	script := shellCdkd(t, "yes '{}' | head -n 100000\n")
	res, err := (&Runner{Path: script}).Run(context.Background(), "diff", "--json")
	assert.NilError(t, err)
	assert.Equal(t, len(res.Stdout), 300000)
}

// BenchmarkDeployStdout runs a deploy printing 50 MB of lines through a
// bounded runner and reports the bytes kept and the heap in use at the end
// (go test ./internal/cdkd -run '^$' -bench DeployStdout -benchtime 1x).
func BenchmarkDeployStdout(b *testing.B) {
	dir := b.TempDir()
	script := dir + "/cdkd"
	if err := writeExecutable(script, "#!/bin/sh\nyes 'Resolved Fn::ImportValue: FixtureBucketName (from index: StackA / us-east-1; literal value)' | head -c 52428800\n"); err != nil {
		b.Fatal(err)
	}
	r := &Runner{Path: script, StdoutTail: DeployStdoutTail}
	for b.Loop() {
		res, err := r.Run(context.Background(), "deploy", "--all", "-y")
		if err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(len(res.Stdout))/(1<<20), "MB-kept")
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "MB-heap")
	}
}

func writeExecutable(path, body string) error { return os.WriteFile(path, []byte(body), 0o755) }
