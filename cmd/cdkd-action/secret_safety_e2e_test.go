package main

// Secret safety where the action learns late what is secret: the assembly
// cdkd synthesized itself, a position cdkd stored as "***", a secret
// stack output printed by cdkd deploy, and cdkd's stderr cut for a report.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// The sample assembly's NoEcho values: printed in plaintext by cdkd 0.284's
// diff, and known secret only from the assembly.
var noEchoSamples = []string{"hunter2-noecho-v1", "hunter2-noecho-v2"}

const unknownPositionsNote = "NoEcho positions are unknown"

// copyDir copies a flat directory (a cloud assembly) to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	assert.NilError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	assert.NilError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		writeFile(t, filepath.Join(dst, e.Name()), readFile(t, filepath.Join(src, e.Name())))
	}
}

// When app is a command, cdkd synthesizes the app itself into cdk.out; the
// diff it prints is captured, not logged, so the assembly read after it
// still hides the NoEcho values before anything renders. from-json without
// app reads cdk.out the same way.
func TestDiffReadsTheAssemblyCdkdSynthesized(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]string
		stub   []cdkdtest.Invocation
	}{
		{
			name:   "app is a command",
			inputs: map[string]string{"all": "true", "app": "node app.js"},
			stub: []cdkdtest.Invocation{{ArgsContain: []string{"diff", "--json", "--app", "node app.js"},
				StdoutFile: abs(t, "../../testdata/cdkd-samples/16-diff-v2-json.stdout")}},
		},
		{
			name:   "app omitted",
			inputs: map[string]string{"all": "true"},
			stub: []cdkdtest.Invocation{{ArgsContain: []string{"diff", "--json"},
				StdoutFile: abs(t, "../../testdata/cdkd-samples/16-diff-v2-json.stdout")}},
		},
		{
			name:   "from-json without app",
			inputs: map[string]string{"from-json": abs(t, "../../testdata/cdkd-samples/16-diff-v2-json.stdout")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			copyDir(t, "../../testdata/cdkd-samples/assembly-v1", filepath.Join(w.dir, "cdk.out"))
			var stub *cdkdtest.Stub
			if tc.stub != nil {
				stub = w.stub(tc.stub...)
			}
			res := w.run(tc.inputs)
			assert.Equal(t, res.code, 0, res.stdout)
			if stub != nil {
				stub.AssertAllUsed(t)
			}
			assertHidden(t, res.channels, noEchoSamples...)
			report := readFile(t, res.outputs["report-json"])
			assert.Assert(t, is.Contains(report, `"secret":"NoEcho"`), "hidden by position, with its label")
			assert.Assert(t, is.Contains(res.summary, "`Value`: `***` → `***` · 🔒 NoEcho"))
			// The runner learns the default too, for the steps that follow.
			assert.Assert(t, is.Contains(res.stdout, "::add-mask::hunter2-noecho-v1\n"))
			assert.Assert(t, !strings.Contains(res.summary, unknownPositionsNote))
		})
	}
}

// With no assembly anywhere, the report says that NoEcho values may show
// and how to fix it.
func TestDiffWithoutAnyAssemblySaysSo(t *testing.T) {
	w := newWorkspace(t)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json", "--app", "node app.js"},
		StdoutFile: abs(t, "../../testdata/cdkd-samples/12-diff-v1-nochange-json.stdout")})
	res := w.run(map[string]string{"all": "true", "app": "node app.js"})
	assert.Equal(t, res.code, 0, res.stdout)
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	for name, text := range map[string]string{"job summary": res.summary, "check run": runs[0].Output.Summary, "comment": comments[0].Body} {
		assert.Assert(t, is.Contains(text, "> ℹ️ "+unknownPositionsNote), name)
		assert.Assert(t, is.Contains(text, "as app"), name)
	}
	// A note is not a change.
	assert.Equal(t, res.outputs["has-changes"], "false")
	assert.Equal(t, runs[0].Conclusion, "success")
}

// A drift change whose stored value is cdkd's "***" is a secret position
// even without an assembly: its live value is the secret, in the report
// JSON as in the Markdown.
func TestDriftStoredHiddenHidesTheLiveValue(t *testing.T) {
	w := newDriftWorkspace(t)
	const live = "live-rotated-token-4c1d"
	drift := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, drift, `[{"stack":"StackA","region":"us-east-1","drifted":[{"logicalId":"TokenParam","type":"AWS::SSM::Parameter",`+
		`"changes":[{"path":"Value","stateValue":"***","awsValue":"`+live+`"}],"referencesUnresolved":false}],`+
		`"clean":[],"notSupported":[],"skipped":[],"notCompared":[]}]`)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"drift", "--json"}, StdoutFile: drift, Exit: 1})
	res := w.run(all)
	assert.Equal(t, res.code, 1, runnermask.Simulate(res.stdout))
	report := readFile(t, res.outputs["report-json"])
	assert.Assert(t, !strings.Contains(report, live), report)
	assert.Assert(t, is.Contains(report, `"secret":"NoEcho"`))
	assertHidden(t, res.channels, live)
}

// cdkd deploy prints each stack output ("  StackA.DbPasswordEcho = …")
// before the action reads which are secret: a secret one reaches the log
// as ***, continuation lines of a multi-line value included. The value read
// back from state is registered without giving the runner its punctuation
// lines ("{", "}"), which would mask every brace of the log.
func TestDeployHidesSecretOutputsInItsLog(t *testing.T) {
	tests := []struct {
		name string
		app  func(w *workspace) string
	}{
		{name: "app is the assembly", app: func(*workspace) string { return abs(t, "testdata/deploy/assembly") }},
		{name: "cdkd synthesized cdk.out", app: func(w *workspace) string {
			copyDir(t, "testdata/deploy/assembly", filepath.Join(w.dir, "cdk.out"))
			return "node app.js"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.onPush()
			app := tc.app(w)
			deploy := deployInvocation(t)
			deploy.StdoutFile = abs(t, "testdata/deploy/deploy-secret-output.stdout")
			loose := func(inv cdkdtest.Invocation) cdkdtest.Invocation {
				inv.ArgsContain, inv.Args = inv.Args, nil
				return inv
			}
			stub := w.stub(
				loose(gateDiff(t, "testdata/deploy/diff-safe.json")),
				loose(deploy),
				fileInvocation(t, "events-StackA.json", "events", "StackA", "--json"),
				fileInvocation(t, "events-StackA-run.json", "events", "StackA", "--json", "--run", "2999-01-01T00-00-00-000Z-deploy"),
				fileInvocation(t, "state-StackA-noecho-multiline.json", "state", "show", "StackA", "--json"),
				fileInvocation(t, "events-StackB.json", "events", "StackB", "--json"),
				fileInvocation(t, "state-StackB.json", "state", "show", "StackB", "--json"),
			)
			res := w.run(deployInputs("require-reviewed-diff", "false", "app", app, "resolve-secrets", "false"), "AWS_REGION=us-east-1")
			assert.Equal(t, res.code, 0, res.stdout)
			stub.AssertAllUsed(t)
			assert.Assert(t, is.Contains(res.stdout, "  StackA.DbPasswordEcho = ***\n"))
			assert.Assert(t, is.Contains(res.stdout, "  StackA.BucketName = stacka-bucket83908e77\n"), "other outputs stay readable")
			assert.Assert(t, is.Contains(res.stdout, "✓ Deployment completed successfully"))
			for _, l := range parseLog(res.stdout) {
				if l.addMask {
					assert.Assert(t, strings.ContainsFunc(l.text, isLetterOrDigit), "::add-mask::%s masks punctuation all over the log", l.text)
				}
			}
			var outs map[string]map[string]string
			assert.NilError(t, json.Unmarshal([]byte(res.outputs["stack-outputs"]), &outs))
			assert.Equal(t, outs["StackA"]["DbPasswordEcho"], "***")
			assertHidden(t, res.channels, append(sampleSecrets, secretOutput)...)
			assertHidden(t, res.channels, `"pw": "rotated-pw-9f8e7d"`)
		})
	}
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// cdkd's stderr tail is cut to a line length in a report; a secret cut
// there would show its first part unless each line is redacted before.
func TestDiffRedactsTheStderrTailBeforeCutting(t *testing.T) {
	w := newWorkspace(t)
	const secret = "tail-secret-value-0123456789"
	// The report cuts a stderr line at 1000 characters: the secret
	// straddles the cut.
	line := strings.Repeat("x", 990) + secret
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StderrLines: []cdkdtest.Line{{Text: line}, {Text: "Error: synth failed"}}, Exit: 1})
	res := w.run(map[string]string{"all": "true", "mask-values": secret})
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Assert(t, is.Contains(res.summary, "synth failed"))
	assert.Assert(t, is.Contains(res.summary, strings.Repeat("x", 990)+"***"))
	for _, c := range res.channels {
		assert.Assert(t, !strings.Contains(c.text, secret[:10]), "the start of the secret shows in %s", c.name)
	}
}
