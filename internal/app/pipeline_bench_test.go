package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// BenchmarkLocalRender is the whole local render of a 10,000-resource,
// 50-stack diff, as `cdkd-action --local --from-json diff.json` runs it in
// one process, with the cloud assembly (--app, as every README workflow
// runs) and without: read and decode cdkd's JSON, redact, render the report to
// stdout and the job summary, and write the report JSON. scripts/bench-jq
// runs the built binary side by side with `jq -c .` over the same input;
// its target is at most 1.5× jq's time on both paths.
//
// The noecho case adds 1,000 changed NoEcho positions (2,000 hidden values,
// each fingerprinted into the digest) with cheap Argon2id parameters: what
// it measures is the redaction and the pipeline around the hashing, which
// at the default parameters costs about 50 ms of one core per value.
func BenchmarkLocalRender(b *testing.B) {
	b.Run("with-assembly", func(b *testing.B) { benchLocalRender(b, true, 0) })
	b.Run("without-assembly", func(b *testing.B) { benchLocalRender(b, false, 0) })
	b.Run("noecho-1000-cheap-argon2", func(b *testing.B) { benchLocalRender(b, true, 20) })
}

func benchLocalRender(b *testing.B, withAssembly bool, noEchoPerStack int) {
	dir := b.TempDir()
	in := filepath.Join(dir, "diff.json")
	raw := cdkdtest.DiffJSONNoEcho(50, 200, noEchoPerStack)
	if err := os.WriteFile(in, []byte(raw), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"--local", "--from-json", in, "--working-directory", dir}
	if withAssembly {
		asm := filepath.Join(dir, "cdk.out")
		if err := os.Mkdir(asm, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := cdkdtest.WriteAssemblyNoEcho(asm, 50, 200, noEchoPerStack); err != nil {
			b.Fatal(err)
		}
		args = append(args, "--app", asm)
	}
	cheap := fingerprint.Params{Algorithm: fingerprint.Algorithm, Version: 19, MemoryKiB: 64, Time: 1, Threads: 1, KeyLen: 32}
	env := map[string]string{"RUNNER_TEMP": dir, "INPUT_MASK-VALUES": "bench-secret-value-00\nbench-secret-value-01"}
	getenv := func(k string) string { return env[k] }
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		a := &App{Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv, Args: args, Deps: Deps{FingerprintParams: cheap}}
		if code := a.Run(context.Background()); code != ExitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
