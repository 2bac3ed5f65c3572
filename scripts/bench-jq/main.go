// Command bench-jq measures the local render of a 10,000-resource, 50-stack
// diff against `jq -c .` over the same JSON, side by side on this machine,
// on both paths: with the cloud assembly (as every README workflow runs)
// and without one:
//
//	go run ./scripts/bench-jq            # 7 interleaved rounds
//	go run ./scripts/bench-jq -rounds 15
//	go run ./scripts/bench-jq -rounds 3 -noecho   # + 1,000 changed NoEcho positions, hashed (target ≤ 10×)
//
// It writes the input (cdkdtest.DiffJSON, the shape of cdkd diff --json),
// and its cloud assembly (cdkdtest.WriteAssembly), builds cdkd-action, then
// alternates `cdkd-action --local --from-json` (with --app and without) and
// `jq -c .` and prints the medians of the wall time and of the CPU time
// (user+sys), their ratios, and cdkd-action's peak memory against its
// bound. The wall time (what a user waits for) and the memory are marked
// met or missed; the CPU time is shown for reference: other load on a
// shared machine disturbs it less, and on a busy machine the wall time
// tends towards it.
//
// The targets: the render at most 1.5× jq's wall time, with the cloud
// assembly and without one, in peak memory at most 4× the input (the diff
// JSON) + 32 MiB. They are generous on purpose: a real job waits seconds
// on every cdkd process, and the render is kept plain code a newcomer can
// change rather than tuned to win this benchmark. Without jq it tries
// apt-get (as root), else it says so and stops.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

func main() {
	rounds := flag.Int("rounds", 7, "interleaved rounds of each command")
	noEcho := flag.Bool("noecho", false, "also render the diff with 1,000 changed NoEcho positions (100 distinct values, each hashed with Argon2id at the release parameters)")
	flag.Parse()
	if err := run(*rounds, *noEcho); err != nil {
		fmt.Fprintln(os.Stderr, "bench-jq:", err)
		os.Exit(1)
	}
}

// benchKey is the fingerprint key of the NoEcho case: with a key every
// hidden value is hashed into the digest with the default (release) Argon2id
// parameters, as a diff in CI does; without one a local run hashes nothing.
const benchKey = "nV3mabSXuVMwPumafkZBV0Am2ydBR1drDWKTWy9+upQ="

type sample struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
}

func run(rounds int, noEcho bool) error {
	jq, err := findJQ()
	if err != nil {
		fmt.Println("bench-jq: skipped:", err)
		return nil
	}
	dir, err := os.MkdirTemp("", "bench-jq-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "diff.json")
	if err := os.WriteFile(in, []byte(cdkdtest.DiffJSON(50, 200)), 0o644); err != nil {
		return err
	}
	bin := filepath.Join(dir, "cdkd-action")
	// Built as the Dockerfile and the release workflow build it (static,
	// without cgo, stripped): a cgo build loads the C library besides, about
	// 1.5 MiB of the peak that no released binary has.
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/cdkd-action")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build cdkd-action (run from the repository root): %w", err)
	}
	// Not cdk.out: a run finds that in its working directory by itself,
	// and the path without an assembly would then read it too.
	asm := filepath.Join(dir, "assembly.out")
	if err := os.Mkdir(asm, 0o755); err != nil {
		return err
	}
	if err := cdkdtest.WriteAssembly(asm, 50, 200); err != nil {
		return err
	}
	env := append(os.Environ(), "RUNNER_TEMP="+dir, "GITHUB_ACTIONS=", "GITHUB_STEP_SUMMARY=")
	// Each path is measured against jq over its own input, with its own
	// target: the render at most 1.5× jq's time, the NoEcho case (every
	// hidden value hashed with Argon2id) at most ten times it.
	type path struct {
		name   string
		in     string
		target float64
		args   []string
	}
	paths := []path{
		{"with the cloud assembly", in, renderTarget, []string{"--local", "--from-json", in, "--app", asm, "--working-directory", dir}},
		{"without an assembly", in, renderTarget, []string{"--local", "--from-json", in, "--working-directory", dir}},
	}
	if noEcho {
		// 20 changed NoEcho positions in each of the 50 stacks: 1,000
		// positions, each hiding its old and its new value.
		in2 := filepath.Join(dir, "noecho.json")
		asm2 := filepath.Join(dir, "noecho.out")
		if err := os.WriteFile(in2, []byte(cdkdtest.DiffJSONNoEcho(50, 200, 20)), 0o644); err != nil {
			return err
		}
		if err := os.Mkdir(asm2, 0o755); err != nil {
			return err
		}
		if err := cdkdtest.WriteAssemblyNoEcho(asm2, 50, 200, 20); err != nil {
			return err
		}
		paths = append(paths, path{"with 1,000 NoEcho changes", in2, 10,
			[]string{"--local", "--from-json", in2, "--app", asm2, "--working-directory", dir, "--fingerprint-key", benchKey}})
	}
	ours := make([][]sample, len(paths))
	theirs := map[string][]sample{}
	for range rounds {
		for i, p := range paths {
			s, err := measure(env, bin, p.args...)
			if err != nil {
				return fmt.Errorf("cdkd-action %s: %w", p.name, err)
			}
			ours[i] = append(ours[i], s)
			if i > 0 && paths[i-1].in == p.in {
				continue // jq runs once per input and round
			}
			s, err = measure(env, jq, "-c", ".", p.in)
			if err != nil {
				return fmt.Errorf("jq: %w", err)
			}
			theirs[p.in] = append(theirs[p.in], s)
		}
	}
	fmt.Printf("%d interleaved rounds, medians; 10,000 resources in 50 stacks\n", rounds)
	for i, p := range paths {
		fi, err := os.Stat(p.in)
		if err != nil {
			return err
		}
		j, o := median(theirs[p.in]), median(ours[i])
		bound := 4*fi.Size() + 32<<20
		fmt.Printf("%-36s wall %7.0f ms   cpu %7.0f ms   peak %6.1f MiB   (input %.1f MiB)\n", "jq -c .", ms(j.wall), ms(j.cpu), mib(j.maxRSS), mib(fi.Size()))
		fmt.Printf("%-36s wall %7.0f ms   cpu %7.0f ms   peak %6.1f MiB\n", "cdkd-action "+p.name, ms(o.wall), ms(o.cpu), mib(o.maxRSS))
		wall, cpu := ms(o.wall)/ms(j.wall), ms(o.cpu)/ms(j.cpu)
		fmt.Printf("  ratio to jq: wall %.2f× (%s), target ≤ %.1f× (cpu %.2f×, for reference); peak memory %.1f MiB (%s), at most %.1f MiB (4× input + 32 MiB)\n",
			wall, verdict(wall <= p.target), p.target, cpu, mib(o.maxRSS), verdict(o.maxRSS <= bound), mib(bound))
	}
	return nil
}

// renderTarget is the most a local render may take, as a multiple of
// `jq -c .` over the same JSON, with the cloud assembly and without one.
const renderTarget = 1.5

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "MISSED"
}

// findJQ finds jq, installing it with apt-get when running as root.
func findJQ() (string, error) {
	if p, err := exec.LookPath("jq"); err == nil {
		return p, nil
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("apt-get"); err == nil {
			fmt.Println("bench-jq: installing jq with apt-get")
			cmd := exec.Command("sh", "-c", "apt-get update -qq && apt-get install -y -qq jq")
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if cmd.Run() == nil {
				return exec.LookPath("jq")
			}
		}
	}
	return "", fmt.Errorf("jq is not installed (apt-get install jq)")
}

func measure(env []string, name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	// Only the figures are of interest: the run's notices would bury them.
	// A failing run's stderr is kept for its error.
	var stderr bytes.Buffer
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %w\n%s", name, err, stderr.Bytes())
	}
	s := sample{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.maxRSS = ru.Maxrss * 1024 // Linux reports KiB
	}
	return s, nil
}

func median(ss []sample) sample {
	pick := func(f func(sample) int64) int64 {
		v := make([]int64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		wall:   time.Duration(pick(func(s sample) int64 { return int64(s.wall) })),
		cpu:    time.Duration(pick(func(s sample) int64 { return int64(s.cpu) })),
		maxRSS: pick(func(s sample) int64 { return s.maxRSS }),
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(n int64) float64        { return float64(n) / (1 << 20) }
