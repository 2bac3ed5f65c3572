package main

import (
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/secrets/runnermask"
)

// assertRerenders feeds the report JSON a run wrote back to --from-json,
// without cdkd, and checks the re-render says exactly what the run said:
// the same job summary, the same report JSON, and nothing posted.
func assertRerenders(t *testing.T, w *workspace, res result, command string) {
	t.Helper()
	report := readFile(t, res.outputs["report-json"])
	assert.Assert(t, is.Contains(report, `"schemaVersion":1`))
	saved := filepath.Join(w.dir, "saved-"+command+".json")
	writeFile(t, saved, report)
	writes := w.gh.Writes()
	w.vars["INPUT_CDKD-PATH"] = filepath.Join(w.dir, "no-cdkd-here") // the re-render must not need cdkd
	again := w.run(map[string]string{"command": command, "from-json": saved})
	assert.Equal(t, again.code, 0, again.stdout)
	assert.Equal(t, again.outputs["failure-reason"], "")
	assert.Equal(t, again.summary, res.summary, "the re-rendered summary differs from the run's")
	assert.Equal(t, readFile(t, again.outputs["report-json"]), report, "the re-written report JSON differs")
	assert.Equal(t, w.gh.Writes(), writes, "a re-render posts nothing")
}

func TestFromReportDiff(t *testing.T) {
	w := newWorkspace(t)
	// The assembly places every value: none is hidden as unknown.
	copyDir(t, "../../testdata/cdkd-samples/assembly-v1", filepath.Join(w.dir, "cdk.out"))
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	res := w.run(all)
	assert.Equal(t, res.code, 0, res.stdout)
	assertRerenders(t, w, res, "diff")

	// The re-render redacts again with this run's secrets: a value hidden
	// only now never leaves either.
	saved := filepath.Join(w.dir, "saved-diff.json")
	assert.Assert(t, is.Contains(readFile(t, saved), "fixture-topic-v2"))
	again := w.run(map[string]string{"from-json": saved, "mask-values": "fixture-topic-v2"})
	assert.Equal(t, again.code, 0, again.stdout)
	for where, text := range map[string]string{"log as the runner shows it": runnermask.Simulate(again.stdout), "summary": again.summary, "report JSON": readFile(t, again.outputs["report-json"])} {
		assert.Assert(t, !strings.Contains(text, "fixture-topic-v2"), "the %s shows a value hidden at re-render", where)
	}
	assert.Assert(t, is.Contains(again.summary, "fixture-topic-v1"), "the rest of the report is still there")
}

func TestFromReportDiffFailure(t *testing.T) {
	w := newWorkspace(t)
	inv := diffInvocation(t, "../../testdata/fixtures/diff-v2.json")
	inv.StdoutFile, inv.Exit = "", 1
	inv.StderrLines = append(inv.StderrLines, cdkdtest.Line{Text: "Error: the app could not be synthesized"})
	w.stub(inv)
	res := w.run(all)
	assert.Equal(t, res.code, 3, res.stdout)
	assertRerenders(t, w, res, "diff")
}

func TestFromReportDrift(t *testing.T) {
	w := newDriftWorkspace(t)
	w.stub(detect(t, "drifted.json", 1))
	res := w.run(withAssembly(t, all))
	assert.Equal(t, res.outputs["drift-status"], "drifted", res.stdout)
	assertRerenders(t, w, res, "drift")
}

func TestFromReportDeploy(t *testing.T) {
	w := newDeployWorkspace(t, reviewedSHA)
	w.stub(append([]cdkdtest.Invocation{
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		gateDiff(t, "testdata/deploy/diff-safe.json"),
		deployInvocation(t),
	}, resultInvocations(t, "events-StackA-run.json")...)...)
	w.review(reviewedSHA, diffInputs())
	res := w.run(deployInputs())
	assert.Equal(t, res.outputs["deployed"], "true", res.stdout)
	assertRerenders(t, w, res, "deploy")
}

// A report is rendered by the command it was written by; another command
// says which one to use.
func TestFromReportWrongCommand(t *testing.T) {
	w := newWorkspace(t)
	w.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	res := w.run(all)
	saved := filepath.Join(w.dir, "saved.json")
	writeFile(t, saved, readFile(t, res.outputs["report-json"]))
	again := w.run(map[string]string{"command": "drift", "from-json": saved})
	assert.Equal(t, again.code, 2, again.stdout)
	assert.Equal(t, again.outputs["failure-reason"], "bad-input")
	assert.Assert(t, is.Contains(again.stdout, "input from-json: cannot render "+saved+": it holds a diff report; run with command: diff"))
}
