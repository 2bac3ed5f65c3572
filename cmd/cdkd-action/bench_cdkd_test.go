package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/app"
	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// What users wait for: the action's diff, drift and gated deploy beside
// cdkd alone doing the same, with the real cdkd against kumo. Not a test:
// a measurement that scripts/bench-cdkd runs (CDKD_BENCH=1, the real cdkd
// in CDKD_TEST_CLI); `go test ./...` skips it. It checks that each command
// did its job (a diff with changes, a clean drift, a reviewed deploy), never
// a time: it prints the figures, their ratios and the targets.
//
// The app has two stacks: StackA of the real-cdkd tests (a NoEcho
// parameter, a secret reference, queues, topics) and a small StackB; v1
// and v2 differ in both. Rounds alternate the direction (v1→v2, v2→v1) and
// who goes first, so that neither side always deploys the same change or
// runs on a warmer cache.
//
// cdkd is laid out as the image installs it (CDKD_BENCH_LAYOUT=npm, the
// default): node_modules/@go-to-k/cdkd with its package.json and
// dist/cli.js, here a two-line ES module that notes the call (to count the
// processes) and imports the real cdkd. CDKD_BENCH_LAYOUT=path names such a
// module with no package as cdkd-path, as a wrapper would: the action then
// asks --version alongside. cdkd alone runs through the same file.

const (
	benchEnv       = "CDKD_BENCH"
	benchRoundsEnv = "CDKD_BENCH_ROUNDS"
	benchLayoutEnv = "CDKD_BENCH_LAYOUT"
	benchLogEnv    = "CDKD_BENCH_LOG"
	// CDKD_BENCH_STACKS and CDKD_BENCH_CHANGED ask for an app of that many
	// small stacks of which that many change between the two versions
	// (selectionApp), instead of the two-stack app.
	benchStacksEnv  = "CDKD_BENCH_STACKS"
	benchChangedEnv = "CDKD_BENCH_CHANGED"
)

// timedLog keeps a step's log with each line's time since the step began:
// where the action's own time goes (CDKD_BENCH_LOG=1).
type timedLog struct {
	mu    sync.Mutex
	start time.Time
	b     strings.Builder
	bol   bool
}

func (l *timedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range strings.Lines(string(p)) {
		if !l.bol {
			fmt.Fprintf(&l.b, "%6d ", time.Since(l.start).Milliseconds())
		}
		l.b.WriteString(line)
		l.bol = !strings.HasSuffix(line, "\n")
	}
	return len(p), nil
}

// benchCli lays out the real cdkd at real for the bench, in root, and
// returns the path the action and cdkd alone run, and the file each call
// is noted in.
func benchCli(t *testing.T, root, real, layout string) (cli, calls string) {
	t.Helper()
	calls = filepath.Join(t.TempDir(), "calls")
	module := "#!/usr/bin/env node\n" +
		"import { appendFileSync } from \"node:fs\";\n" +
		"appendFileSync(" + strconv.Quote(calls) + ", process.argv.slice(2).join(\" \") + \"\\n\");\n" +
		"await import(" + strconv.Quote((&url.URL{Scheme: "file", Path: real}).String()) + ");\n"
	switch layout {
	case "path":
		cli = filepath.Join(root, "cdkd-wrapper.mjs")
		writeFile(t, cli, module)
		assert.NilError(t, os.Chmod(cli, 0o755))
	case "npm":
		out, err := exec.Command(real, "--version").Output()
		assert.NilError(t, err, "%s --version", real)
		version := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
		pkg := filepath.Join(root, "node_modules", "@go-to-k", "cdkd")
		assert.NilError(t, os.MkdirAll(filepath.Join(pkg, "dist"), 0o755))
		writeJSON(t, filepath.Join(pkg, "package.json"), map[string]any{
			"name": cdkd.Package, "version": version, "type": "module", "bin": map[string]string{"cdkd": "dist/cli.js"}})
		writeFile(t, filepath.Join(pkg, "dist", "cli.js"), module)
		assert.NilError(t, os.Chmod(filepath.Join(pkg, "dist", "cli.js"), 0o755))
		bin := filepath.Join(root, "node_modules", ".bin")
		assert.NilError(t, os.MkdirAll(bin, 0o755))
		cli = filepath.Join(bin, "cdkd")
		assert.NilError(t, os.Symlink(filepath.Join("..", "@go-to-k", "cdkd", "dist", "cli.js"), cli))
		assert.Equal(t, cdkd.PackageVersion(cli), version, "the layout is read as the image's")
	default:
		t.Fatalf("%s=%q: expected npm or path", benchLayoutEnv, layout)
	}
	return cli, calls
}

// benchAssembly is realAssembly's StackA with a StackB beside it (an SSM
// parameter and a topic whose values change between versions).
func benchAssembly(t *testing.T, u string, version int, noecho string) string {
	t.Helper()
	dir := realAssembly(t, u, version, noecho)
	var manifest map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "manifest.json"))), &manifest))
	artifacts := manifest["artifacts"].(map[string]any)
	artifacts["StackB"] = map[string]any{
		"type":        "aws:cloudformation:stack",
		"environment": "aws://unknown-account/us-east-1",
		"properties":  map[string]any{"templateFile": "StackB.template.json", "validateOnSynth": false},
		"displayName": "StackB",
	}
	writeJSON(t, filepath.Join(dir, "manifest.json"), manifest)
	v := strconv.Itoa(version)
	writeJSON(t, filepath.Join(dir, "StackB.template.json"), map[string]any{
		"Resources": map[string]any{
			"BParam": map[string]any{"Type": "AWS::SSM::Parameter", "Properties": map[string]any{
				"Name": "/rc" + u + "/b-param", "Type": "String", "Value": "b-value-v" + v}},
			"BTopic": map[string]any{"Type": "AWS::SNS::Topic", "Properties": map[string]any{"DisplayName": "b-topic-v" + v}},
		},
		"Outputs": map[string]any{"BTopicArn": map[string]any{"Value": map[string]any{"Ref": "BTopic"}}},
	})
	return dir
}

// benchSample is one measured run: its wall time, the cdkd processes it
// started, their CPU time (user+sys), and the CPU time of this process
// meanwhile (the action's own work, and kumo's and the GitHub fake's,
// which cdkd alone also keeps busy).
type benchSample struct {
	wall         time.Duration
	procs        int
	cdkdCPU      time.Duration
	inProcessCPU time.Duration
}

// cpuNow is this process's CPU time and its waited-for children's.
func cpuNow() (self, children time.Duration) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return self, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs f and says what it cost.
func measure(countCalls func() int, f func()) benchSample {
	before := countCalls()
	self0, children0 := cpuNow()
	start := time.Now()
	f()
	wall := time.Since(start)
	self1, children1 := cpuNow()
	return benchSample{wall: wall, procs: countCalls() - before, cdkdCPU: children1 - children0, inProcessCPU: self1 - self0}
}

func TestCdkdWaitBenchmark(t *testing.T) {
	if os.Getenv(benchEnv) == "" {
		t.Skipf("%s is not set: a measurement, run by scripts/bench-cdkd", benchEnv)
	}
	real := realCdkd(t)
	rounds := 4
	if s := os.Getenv(benchRoundsEnv); s != "" {
		n, err := strconv.Atoi(s)
		assert.NilError(t, err, benchRoundsEnv)
		rounds = n
	}
	layout := cmp.Or(os.Getenv(benchLayoutEnv), "npm")

	e, u, bucket, password := realWorld(t, "rc-bench-")
	noecho := map[int]string{1: "noecho-v1-" + u, 2: "noecho-v2-" + u}
	apps := map[int]string{1: benchAssembly(t, u, 1, noecho[1]), 2: benchAssembly(t, u, 2, noecho[2])}
	appDesc := "two stacks"
	// changedStacks are the stacks v1 and v2 differ in, as the deploy
	// names them (cdkd alone's floor deploys exactly those).
	changedStacks := []string{"StackA", "StackB"}
	if ns := os.Getenv(benchStacksEnv); ns != "" {
		n, err := strconv.Atoi(ns)
		assert.NilError(t, err, benchStacksEnv)
		changed, err := strconv.Atoi(cmp.Or(os.Getenv(benchChangedEnv), "1"))
		assert.NilError(t, err, benchChangedEnv)
		assert.Assert(t, n > 0 && changed > 0 && changed <= n, "%s=%d, %s=%d: expected 0 < changed <= stacks", benchStacksEnv, n, benchChangedEnv, changed)
		apps = map[int]string{1: selectionApp(t, u, n, 0, 1, 0), 2: selectionApp(t, u, n, changed, 2, 0)}
		appDesc = fmt.Sprintf("%d stacks, %d changed", n, changed)
		changedStacks = nil
		for i := range changed {
			changedStacks = append(changedStacks, fmt.Sprintf("S%03d", i))
		}
	}

	w := newDeployWorkspace(t, reviewedSHA, "cdkd:allow-destructive")
	w.useAWS(e)
	// npm: installed in the working directory (node_modules/.bin/cdkd, as
	// a repository pins it; the image's global install is read alike).
	cli, calls := benchCli(t, w.dir, real, layout)
	if layout == "path" {
		w.vars["INPUT_CDKD-PATH"] = cli
	}
	countCalls := func() int {
		b, err := os.ReadFile(calls)
		if os.IsNotExist(err) {
			return 0
		}
		assert.NilError(t, err)
		return bytes.Count(b, []byte("\n"))
	}
	w.secret(password, noecho[1], noecho[2])
	inputs := func(app int, kv ...string) map[string]string {
		in := map[string]string{"all": "true", "app": apps[app], "state-bucket": bucket}
		for i := 0; i+1 < len(kv); i += 2 {
			in[kv[i]] = kv[i+1]
		}
		return in
	}
	action := func(name string, in map[string]string) (benchSample, result) {
		t.Helper()
		s := w.newStep(in, nil)
		var log syncBuffer
		timed := &timedLog{start: time.Now()}
		out := io.MultiWriter(&log, timed)
		a := s.app(w.dir, out, out, nil)
		a.Deps.FingerprintParams = fingerprint.Params{} // the release's Argon2id, not the tests' cheap one
		a.Deps.CdkdVersionTimeout = 10 * time.Minute    // a loaded machine starts Node slowly
		var code app.ExitCode
		sample := measure(countCalls, func() { code = a.Run(context.Background()) })
		res := w.finish(s, log.String(), int(code))
		if os.Getenv(benchLogEnv) != "" {
			fmt.Printf("\n--- %s, %s (ms since the step began):\n%s", name, sample.wall.Round(time.Millisecond), timed.b.String())
		}
		return sample, res
	}
	common := func(app int) cdkd.Common { return cdkd.Common{All: true, App: apps[app], StateBucket: bucket} }
	alone := func(args []string, err error) benchSample {
		t.Helper()
		assert.NilError(t, err)
		cmd := exec.Command(cli, args...)
		cmd.Dir = w.dir
		// The environment the action gives cdkd in that step (the
		// runner's variables, AWS), with what the action adds.
		cmd.Env = append(w.newStep(nil, nil).environ(), "CDKD_NO_LIVE=1")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = nil, &stderr
		sample := measure(countCalls, func() { err = cmd.Run() })
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			assert.NilError(t, err)
		}
		// diff exits 0 or 1 (changes) by cdkd's own rule; others 0.
		assert.Assert(t, code == 0 || (args[0] == "diff" && code == 1), "cdkd %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		return sample
	}
	aloneDeploy := func(app int) (diff, deploy benchSample) {
		diff = alone(cdkd.DiffArgs(common(app)))
		deploy = alone(cdkd.DeployArgs(common(app)))
		return diff, deploy
	}
	// aloneFloor is what the gated deploy cannot go below: cdkd deploy of
	// exactly the changed stacks (the gate's diff is measured apart).
	aloneFloor := func(app int) benchSample {
		c := common(app)
		c.All, c.Stacks = false, changedStacks
		return alone(cdkd.DeployArgs(c))
	}
	actionDiff := func(app int) benchSample {
		w.onPullRequest(reviewedSHA)
		s, res := action("diff", inputs(app))
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["has-changes"], "true", res.stdout)
		return s
	}
	actionDrift := func(app int) benchSample {
		w.onSchedule()
		s, res := action("drift", inputs(app, "command", "drift"))
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["drift-status"], "clean", res.stdout)
		return s
	}
	actionDeploy := func(app int) benchSample {
		w.onPush()
		s, res := action("deploy", inputs(app, "command", "deploy"))
		assert.Equal(t, res.code, 0, res.stdout)
		assert.Equal(t, res.outputs["deployed"], "true", res.stdout)
		assert.Assert(t, strings.Contains(res.summary, "reviewed at `8888888`"), res.summary)
		return s
	}

	// The first deploy, not measured.
	alone(cdkd.DeployArgs(common(1)))
	load := func() string {
		b, _ := os.ReadFile("/proc/loadavg")
		return strings.Join(strings.Fields(string(b))[:min(3, len(strings.Fields(string(b))))], " ")
	}
	loadBefore := load()

	var (
		aDiff, cDiff, aDrift, cDrift, aDeploy []benchSample
		cGate, cDeploy                        []benchSample // cdkd alone's diff and deploy --all of a gated deploy
		cFloor                                []benchSample // cdkd alone's deploy of the changed stacks, --exclusively
	)
	state := 1
	other := func(v int) int { return 3 - v }
	for r := range rounds {
		pair := func(first, second func()) {
			if r%2 == 0 {
				first()
				second()
			} else {
				second()
				first()
			}
		}
		if r%2 == 1 {
			// cdkd alone deploys first, the action deploys back.
			d, p := aloneDeploy(other(state))
			cGate, cDeploy = append(cGate, d), append(cDeploy, p)
			state = other(state)
		}
		target := other(state)
		pair(func() { aDiff = append(aDiff, actionDiff(target)) }, func() { cDiff = append(cDiff, alone(cdkd.DiffArgs(common(target)))) })
		pair(func() { aDrift = append(aDrift, actionDrift(state)) }, func() { cDrift = append(cDrift, alone(cdkd.DriftArgs(common(state), "", cdkd.ResolutionNone))) })
		aDeploy = append(aDeploy, actionDeploy(target))
		state = target
		cFloor = append(cFloor, aloneFloor(other(state)))
		state = other(state)
		if r%2 == 0 {
			d, p := aloneDeploy(other(state))
			cGate, cDeploy = append(cGate, d), append(cDeploy, p)
			state = other(state)
		}
	}

	med := func(ss []benchSample) time.Duration {
		ws := make([]time.Duration, len(ss))
		for i, s := range ss {
			ws[i] = s.wall
		}
		slices.Sort(ws)
		if len(ws)%2 == 1 {
			return ws[len(ws)/2]
		}
		return (ws[len(ws)/2-1] + ws[len(ws)/2]) / 2
	}
	procs := func(ss []benchSample) string {
		seen := map[int]bool{}
		var out []string
		for _, s := range ss {
			if !seen[s.procs] {
				seen[s.procs] = true
				out = append(out, strconv.Itoa(s.procs))
			}
		}
		return strings.Join(out, "/")
	}
	sum := make([]benchSample, len(cGate))
	for i := range cGate {
		sum[i] = benchSample{wall: cGate[i].wall + cDeploy[i].wall, procs: cGate[i].procs + cDeploy[i].procs,
			cdkdCPU: cGate[i].cdkdCPU + cDeploy[i].cdkdCPU, inProcessCPU: cGate[i].inProcessCPU + cDeploy[i].inProcessCPU}
	}
	sec := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	var b strings.Builder
	fmt.Fprintf(&b, "\ncdkd-action beside cdkd alone: real cdkd %s (%s layout), kumo, %s, %d rounds; medians\n", filepath.Base(real), layout, appDesc, rounds)
	fmt.Fprintf(&b, "load average before %s, after %s; %d cores\n\n", loadBefore, load(), runtime.NumCPU())
	fmt.Fprintf(&b, "| command | cdkd alone | the action | ratio | ratio, round by round | target | cdkd processes (action / alone) | |\n|---|---|---|---|---|---|---|---|\n")
	row := func(name string, alone, act []benchSample, slack time.Duration) {
		ca, aa := med(alone), med(act)
		target := time.Duration(float64(ca)*1.15) + slack
		verdict := "meets"
		if aa > target {
			verdict = "MISSES"
		}
		// Each round's pair ran back to back: the median of their ratios
		// moves less with the machine's load than the ratio of medians.
		paired := make([]benchSample, len(act))
		for i := range act {
			paired[i].wall = time.Duration(float64(time.Second) * act[i].wall.Seconds() / alone[i].wall.Seconds())
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2fx | %.2fx | ≤ %s (1.15x + %.1f s) | %s / %s | %s |\n", name, sec(ca), sec(aa),
			aa.Seconds()/ca.Seconds(), med(paired).Seconds(), sec(target), slack.Seconds(), procs(act), procs(alone), verdict)
	}
	row("diff", cDiff, aDiff, 300*time.Millisecond)
	row("drift", cDrift, aDrift, 300*time.Millisecond)
	row("gated deploy", sum, aDeploy, 500*time.Millisecond)
	// CPU time moves less with other load than wall time: cdkd's own, and
	// this process's beside it (the action's work on top of the
	// emulator's and the fake's, which cdkd alone also keeps busy).
	medOf := func(ss []benchSample, f func(benchSample) time.Duration) time.Duration {
		xs := make([]benchSample, len(ss))
		for i, s := range ss {
			xs[i].wall = f(s)
		}
		return med(xs)
	}
	cdkdCPU := func(s benchSample) time.Duration { return s.cdkdCPU }
	inCPU := func(s benchSample) time.Duration { return s.inProcessCPU }
	fmt.Fprintf(&b, "\nCPU time, medians (user+sys):\n\n| command | cdkd, alone | cdkd, under the action | in-process, alone | in-process, the action | ratio of the sums |\n|---|---|---|---|---|---|\n")
	cpuRow := func(name string, alone, act []benchSample) {
		ca, cc, ia, ic := medOf(alone, cdkdCPU), medOf(act, cdkdCPU), medOf(alone, inCPU), medOf(act, inCPU)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2fx |\n", name, sec(ca), sec(cc), sec(ia), sec(ic), (cc+ic).Seconds()/(ca+ia).Seconds())
	}
	cpuRow("diff", cDiff, aDiff)
	cpuRow("drift", cDrift, aDrift)
	cpuRow("gated deploy", sum, aDeploy)
	fmt.Fprintf(&b, "\ncdkd alone, gated deploy = diff %s + deploy --all %s (medians)\n", sec(med(cGate)), sec(med(cDeploy)))
	fmt.Fprintf(&b, "the gated deploy vs cdkd deploy --all alone: %s vs %s, %.2fx\n", sec(med(aDeploy)), sec(med(cDeploy)), med(aDeploy).Seconds()/med(cDeploy).Seconds())
	floor := med(cGate) + med(cFloor)
	fmt.Fprintf(&b, "its floor, cdkd diff + cdkd deploy of the %d changed stacks --exclusively (%s): %s; the gated deploy %.2fx of it (target ≤ 1.15x + 0.5 s = %s)\n",
		len(changedStacks), sec(med(cFloor)), sec(floor), med(aDeploy).Seconds()/floor.Seconds(), sec(time.Duration(float64(floor)*1.15)+500*time.Millisecond))
	each := func(name string, ss []benchSample) {
		fmt.Fprintf(&b, "%-22s", name)
		for _, s := range ss {
			fmt.Fprintf(&b, " %6.2f", s.wall.Seconds())
		}
		b.WriteString("\n")
	}
	b.WriteString("\nevery round (s):\n")
	each("diff, cdkd alone", cDiff)
	each("diff, action", aDiff)
	each("drift, cdkd alone", cDrift)
	each("drift, action", aDrift)
	each("deploy, cdkd diff", cGate)
	each("deploy, cdkd deploy", cDeploy)
	each("deploy, changed only", cFloor)
	each("deploy, action", aDeploy)
	fmt.Print(b.String())
}
