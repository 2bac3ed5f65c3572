package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/github/githubtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// The real engine. These tests run the cdkd CDKD_TEST_CLI names (the
// bundled 0.284.40, ../shared/cdkd/bin/cdkd.mjs, in .ci/run; the npm
// package in the GitHub workflow) against kumo, through the action, one
// step after another as a team would. One real cdkd call costs seconds, so
// the steps share one emulator, one state bucket and one app, and
// `go test ./...` skips them unless the variable is set.

// realCdkdEnv names the cdkd to run; requireRealEnv makes a skip a failure
// (.ci/run sets both when the bundled cdkd is there).
const (
	realCdkdEnv    = "CDKD_TEST_CLI"
	requireRealEnv = "CDKD_TEST_REQUIRE"
)

// realCdkd returns the absolute path of the cdkd to run, or skips the test
// with a one-line reason.
func realCdkd(t *testing.T) string {
	t.Helper()
	p := os.Getenv(realCdkdEnv)
	if p == "" {
		if os.Getenv(requireRealEnv) != "" {
			t.Fatalf("%s is set but %s is not: the real-cdkd tests must run", requireRealEnv, realCdkdEnv)
		}
		t.Skipf("%s is not set: the real-cdkd tests need a cdkd (.ci/run sets it to ../shared/cdkd/bin/cdkd.mjs)", realCdkdEnv)
	}
	if !filepath.IsAbs(p) {
		// .ci/run names it from the repository root; the test runs in
		// cmd/cdkd-action.
		if root, err := filepath.Abs(filepath.Join("..", "..", p)); err == nil {
			p = root
		}
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v", realCdkdEnv, err)
	}
	if strings.HasSuffix(p, ".mjs") {
		if _, err := exec.LookPath("node"); err != nil {
			t.Fatalf("%s is %s, a Node script, and node is not on PATH: %v", realCdkdEnv, p, err)
		}
	}
	return p
}

// serveSQSQuirk makes the emulator answer on localhost:4566 too: kumo
// writes every SQS queue URL as http://localhost:4566/..., and cdkd sends a
// queue's calls to the host of its URL. Only one test on a machine can
// hold the port: the real-cdkd tests of this process take turns
// (sqsQuirkPort, held until the test ends), and a test must not pause
// (t.Parallel) while it holds it.
func (e *awsEmulator) serveSQSQuirk(t *testing.T) {
	t.Helper()
	sqsQuirkPort.Lock()
	t.Cleanup(sqsQuirkPort.Unlock)
	for _, addr := range []string{"127.0.0.1:4566", "[::1]:4566"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			if addr != "127.0.0.1:4566" && errors.Is(err, syscall.EADDRNOTAVAIL) {
				continue // no IPv6 loopback: localhost is 127.0.0.1 only
			}
			t.Fatalf("listen on %s for kumo's SQS queue URLs (is another real-cdkd test or a kumo running?): %v", addr, err)
		}
		srv := &http.Server{Handler: e.handler, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
}

// realAssembly writes StackA of testdata/cdkd-samples/assembly-v1 (the app
// the captures come from) with its names made unique by u, kumo's storage
// being the process's: version 2 changes the NoEcho default, the queue's
// visibility timeout, and drops ExtraTopic.
func realAssembly(t *testing.T, u string, version int, noecho string) string {
	t.Helper()
	src := "../../testdata/cdkd-samples/assembly-v1"
	dir := t.TempDir()
	var manifest map[string]any
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(src, "manifest.json"))), &manifest))
	artifacts := manifest["artifacts"].(map[string]any)
	for name := range artifacts {
		if strings.HasPrefix(name, "StackB") {
			delete(artifacts, name)
		}
	}
	writeJSON(t, filepath.Join(dir, "manifest.json"), manifest)
	for _, f := range []string{"StackA.assets.json", "StackA.metadata.json"} {
		writeFile(t, filepath.Join(dir, f), readFile(t, filepath.Join(src, f)))
	}
	names := strings.NewReplacer(
		"/fixture/", "/rc"+u+"/",
		"fixture-queue-v1", "rc"+u+"-queue",
		"my-secret", "rc"+u+"-secret",
		"FixtureBucketName", "Rc"+u+"Bucket",
		"Bucket83908E77", "Bucket"+u,
		"hunter2-noecho-v1", noecho,
	)
	var tpl map[string]any
	assert.NilError(t, json.Unmarshal([]byte(names.Replace(readFile(t, filepath.Join(src, "StackA.template.json")))), &tpl))
	if version == 2 {
		res := tpl["Resources"].(map[string]any)
		res["Queue4A7E3555"].(map[string]any)["Properties"].(map[string]any)["VisibilityTimeout"] = 60
		delete(res, "ExtraTopic17EFD352")
		delete(tpl["Outputs"].(map[string]any), "ExtraTopicArn")
	}
	writeJSON(t, filepath.Join(dir, "StackA.template.json"), tpl)
	return dir
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	assert.NilError(t, err)
	writeFile(t, path, string(b))
}

// realWorld is what a real-cdkd run needs of the emulator: kumo, also on
// localhost:4566, a state bucket named bucketPrefix + u (u unique to the
// test) and the secret realAssembly's app references, whose password is
// returned.
func realWorld(t *testing.T, bucketPrefix string) (e *awsEmulator, u, bucket, password string) {
	t.Helper()
	parallel(t) // before taking the port: a paused test would hold it
	e = startAWS(t)
	e.serveSQSQuirk(t)
	u = unique(t)
	bucket = bucketPrefix + u
	e.createBucket(t, bucket, nil)
	password = "pw-" + u + "-s3cr3t"
	e.secret(t, "rc"+u+"-secret", `{"password":"`+password+`"}`)
	return e, u, bucket, password
}

// sqsQuirkPort is held by the real-cdkd test that serves localhost:4566.
var sqsQuirkPort sync.Mutex

// onSchedule makes the next step run on the nightly schedule.
func (w *workspace) onSchedule() {
	w.t.Helper()
	event := filepath.Join(w.dir, "schedule.json")
	writeFile(w.t, event, readFile(w.t, "testdata/drift/schedule.json"))
	w.vars["GITHUB_EVENT_NAME"], w.vars["GITHUB_EVENT_PATH"], w.vars["GITHUB_SHA"] = "schedule", event, scheduledSHA
	w.vars["GITHUB_REF"] = "refs/heads/main"
}

// ssmValue reads a parameter's live value.
func (e *awsEmulator) ssmValue(t *testing.T, name string) string {
	t.Helper()
	out, err := ssm.NewFromConfig(e.config()).GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String(name), WithDecryption: aws.Bool(true)})
	assert.NilError(t, err, "read parameter %s", name)
	return aws.ToString(out.Parameter.Value)
}

// A team's life with the real engine: the first deploy, a pull request's
// diff, its gated deploy (fingerprints compared across the two deploys),
// a clean nightly drift, a drift after out-of-band changes to a NoEcho-fed
// and a secret-reference position, and the revert. Every step's channels
// pass the leak check for the NoEcho values, the referenced secret (also
// the name of a queue, so in its URL) and the out-of-band values.
func TestRealCdkdLifecycle(t *testing.T) {
	cli := realCdkd(t)
	e, u, bucket, password := realWorld(t, "rc-state-")
	noecho1, noecho2 := "noecho-v1-"+u, "noecho-v2-"+u
	oobNoEcho, oobRef := "oob-noecho-"+u, "oob-secretref-"+u
	v1, v2 := realAssembly(t, u, 1, noecho1), realAssembly(t, u, 2, noecho2)

	// The pull request removes a topic: its label, added by a writer after
	// the diff posted the review and before the merge, allows that.
	w := newDeployWorkspace(t, reviewedSHA)
	w.useAWS(e)
	w.vars["INPUT_CDKD-PATH"] = cli
	w.secret(password, noecho1, noecho2, oobNoEcho, oobRef)
	inputs := func(app string, kv ...string) map[string]string {
		in := map[string]string{"all": "true", "app": app, "state-bucket": bucket}
		for i := 0; i+1 < len(kv); i += 2 {
			in[kv[i]] = kv[i+1]
		}
		return in
	}
	step := func(name string, in map[string]string) result {
		t.Helper()
		start := time.Now()
		// w.run, with a wider bound on `cdkd --version`: on a shared CI
		// machine Node alone can take longer than cdkd.VersionTimeout
		// to start.
		s := w.newStep(in, nil)
		var log syncBuffer
		a := s.app(w.dir, &log, &log, nil)
		a.Deps.CdkdVersionTimeout = 10 * time.Minute
		code := a.Run(context.Background())
		res := w.finish(s, log.String(), int(code))
		var calls []string
		for _, l := range strings.Split(res.stdout, "\n") {
			if c, ok := strings.CutPrefix(l, "::group::cdkd "); ok {
				calls = append(calls, strings.Join(strings.Fields(c)[:min(2, len(strings.Fields(c)))], " "))
			}
		}
		t.Logf("%s: exit %d in %s, cdkd calls: %s", name, res.code, time.Since(start).Round(time.Millisecond), strings.Join(calls, ", "))
		return res
	}
	fpKey := "cdkd-action/StackA/us-east-1/fingerprints.json"
	noechoPos := fingerprint.Position{Stack: "StackA", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "NoEchoParam2FCCC8BD", Path: "Value"}
	refPos := fingerprint.Position{Stack: "StackA", Region: "us-east-1", Kind: fingerprint.KindResource, LogicalID: "SecretRefParam4A819521", Path: "Value"}
	record := func() (string, *fingerprint.Record) {
		t.Helper()
		raw, ok := e.object(t, bucket, fpKey)
		assert.Assert(t, ok, "no fingerprint object at s3://%s/%s", bucket, fpKey)
		rec, err := fingerprint.Decode([]byte(raw))
		assert.NilError(t, err)
		assertHidden(t, []channel{{"the fingerprint object", raw}}, password, noecho1, noecho2)
		return raw, rec
	}

	// 1. The first deploy of the app: nothing was reviewed yet.
	w.onPush()
	res := step("first deploy", inputs(v1, "command", "deploy", "require-reviewed-diff", "false"))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Assert(t, is.Contains(res.outputs["stack-outputs"], "rc"+u+"-queue"))
	assert.Assert(t, is.Contains(res.stdout, "recorded the fingerprints of"), res.stdout)
	_, first := record()
	assert.Assert(t, first.Lookup(noechoPos) != nil, "the NoEcho-fed position is fingerprinted")
	assert.Assert(t, first.Lookup(refPos) != nil, "the secret-reference position is fingerprinted")

	// 2. A pull request changes the NoEcho default, the queue and drops a
	// topic: the diff comment, check run and outputs say so.
	w.onPullRequest(reviewedSHA)
	res = step("pull request diff", inputs(v2))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["has-changes"], "true")
	comments := w.gh.Comments(owner, repo, deployPR)
	assert.Assert(t, len(comments) > 0, "no diff comment")
	comment := comments[len(comments)-1].Body
	for _, want := range []string{"Queue4A7E3555", "VisibilityTimeout", "ExtraTopic17EFD352", "NoEchoParam2FCCC8BD"} {
		assert.Assert(t, is.Contains(comment, want), "the comment does not show %s:\n%s", want, comment)
	}
	assert.Assert(t, is.Contains(comment, "**changed**"), "the NoEcho value's change is not shown:\n%s", comment)
	var diffCheck *githubtest.CheckRun
	for _, cr := range w.gh.CheckRuns() {
		if cr.Name == "cdkd diff" {
			diffCheck = &cr
		}
	}
	assert.Assert(t, diffCheck != nil, "no diff check run")
	assert.Equal(t, diffCheck.Conclusion, "neutral", "a diff with changes is neutral")

	// 3. Merged: the gated deploy finds the review and applies it; the
	// NoEcho position's fingerprint changes, the reference's does not.
	w.writers("carol")
	w.mergeLater()
	w.gh.LabelNow(owner, repo, deployPR, "cdkd:allow-destructive", "carol")
	w.onPush()
	res = step("gated deploy", inputs(v2, "command", "deploy"))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["deployed"], "true")
	assert.Assert(t, is.Contains(res.summary, "reviewed at `8888888`"), res.summary)
	_, second := record()
	assert.Assert(t, second.Lookup(noechoPos) != nil && !second.Lookup(noechoPos).Equal(*first.Lookup(noechoPos)), "the new NoEcho value's fingerprint was not recorded")
	assert.Assert(t, second.Lookup(refPos) != nil && second.Lookup(refPos).Equal(*first.Lookup(refPos)), "the unchanged reference's fingerprint changed")

	// 4. The nightly drift finds nothing.
	w.onSchedule()
	res = step("drift, clean", inputs(v2, "command", "drift", "issue", "true"))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "clean", res.stdout)

	// 5. Someone changes both secret-fed parameters in the console.
	e.parameter(t, "/rc"+u+"/noecho", oobNoEcho, false)
	e.parameter(t, "/rc"+u+"/secretref", oobRef, false)
	res = step("drift, out of band", inputs(v2, "command", "drift", "issue", "true"))
	assert.Equal(t, res.code, 1, res.stdout)
	assert.Equal(t, res.outputs["drift-status"], "drifted", res.stdout)
	assert.Equal(t, res.outputs["drifted-count"], "2", res.stdout)
	issues := w.gh.Issues()
	assert.Assert(t, len(issues) == 1, "one tracking issue, got %d:\n%s", len(issues), res.stdout)
	for _, id := range []string{"NoEchoParam2FCCC8BD", "SecretRefParam4A819521"} {
		assert.Assert(t, is.Contains(issues[0].Body, id), "the issue does not name %s:\n%s", id, issues[0].Body)
	}

	// 6. The revert puts the deployed values back.
	res = step("drift --revert", inputs(v2, "command", "drift", "issue", "true", "drift-resolution", "revert"))
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Equal(t, e.ssmValue(t, "/rc"+u+"/noecho"), noecho2)
	assert.Equal(t, e.ssmValue(t, "/rc"+u+"/secretref"), password)
	for _, want := range []string{"**Reverted** (2)", "After the resolution, `cdkd drift` reports: ✅ no drift."} {
		assert.Assert(t, is.Contains(res.summary, want), res.summary)
	}
	issues = w.gh.Issues()
	assert.Equal(t, issues[0].State, "closed", "the tracking issue is closed once nothing drifts")
}
