package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// BenchmarkLocalRender is the whole local render of a 10,000-resource,
// 50-stack diff, as `cdkd-action --local --from-json diff.json` runs it in
// one process, with the cloud assembly (--app, as every README workflow
// runs) and without: read and decode cdkd's JSON, redact, render the report to
// stdout and the job summary, and write the report JSON. scripts/bench-jq
// runs the built binary side by side with `jq -c .` over the same input;
// the target is a ratio at or under 1.0.
func BenchmarkLocalRender(b *testing.B) {
	for _, withAssembly := range []bool{true, false} {
		name := "without-assembly"
		if withAssembly {
			name = "with-assembly"
		}
		b.Run(name, func(b *testing.B) { benchLocalRender(b, withAssembly) })
	}
}

func benchLocalRender(b *testing.B, withAssembly bool) {
	dir := b.TempDir()
	in := filepath.Join(dir, "diff.json")
	raw := cdkdtest.DiffJSON(50, 200)
	if err := os.WriteFile(in, []byte(raw), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"--local", "--from-json", in, "--working-directory", dir}
	if withAssembly {
		asm := filepath.Join(dir, "cdk.out")
		if err := os.Mkdir(asm, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := cdkdtest.WriteAssembly(asm, 50, 200); err != nil {
			b.Fatal(err)
		}
		args = append(args, "--app", asm)
	}
	env := map[string]string{"RUNNER_TEMP": dir, "INPUT_MASK-VALUES": "bench-secret-value-00\nbench-secret-value-01"}
	getenv := func(k string) string { return env[k] }
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		a := &App{Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv, Args: args}
		if code := a.Run(context.Background()); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
