package main

// Leak tests of issue 45 item 4: the runner masks the sections of a secret
// on either side of "&" (PowerShell's pre- and post-ampersand sections, 6
// UTF-16 code units or more); the action hides them on every channel too.

import (
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

const (
	ampSecret = "db-user-x7&db-pass-Q9z2"
	ampPre    = "db-user-x7&"  // up to the last "&"
	ampPost   = "db-pass-Q9z2" // after it
)

// ampValue holds each section alone, beside public text.
const ampValue = "user " + ampPre + " then pass " + ampPost + " for public-setting-ok"

func declareSections(w *workspace) {
	w.secret(ampSecret)
	w.declare(
		leakSecret{name: "the section before &", shape: "section", where: "the runner masks it", value: ampPre},
		leakSecret{name: "the section after &", shape: "section", where: "the runner masks it", value: ampPost})
}

// A diff value and cdkd's log holding the sections: neither reaches the
// PR comment, check run, job summary, outputs, report JSON or log; the
// public text around them is shown.
func TestAmpersandSectionsInADiffDoNotLeak(t *testing.T) {
	diff := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, diff, mustJSON([]map[string]any{{"stack": "Named", "region": "us-east-1",
		"changes": []map[string]any{{"logicalId": "Param", "changeType": "UPDATE", "resourceType": "AWS::SSM::Parameter",
			"propertyChanges": []map[string]any{{"path": "Value", "oldValue": "plain", "newValue": ampValue, "requiresReplacement": false}}}},
		"outputChanges": []any{}, "children": []any{}}}))
	w := newWorkspace(t)
	declareSections(w)
	w.stub(cdkdtest.Invocation{ArgsContain: []string{"diff", "--json"}, StdoutFile: diff,
		StderrLines: []cdkdtest.Line{{Text: "debug: connecting as " + ampPre + " with " + ampPost}}})
	res := w.run(map[string]string{"stacks": "Named", "app": blobAssembly(t), "mask-values": ampSecret})
	assert.Equal(t, res.code, 0, res.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1))
	want := "user *** then pass *** for public-setting-ok"
	for _, c := range []channel{{"the PR comment", comments[0].Body}, {"the check run", diffCheck(t, w.gh).Output.Summary + diffCheck(t, w.gh).Output.Text}, {"the job summary", res.summary}} {
		assert.Check(t, is.Contains(c.text, want), "%s", c.name)
	}
	assert.Check(t, is.Contains(res.stdout, "debug: connecting as *** with ***"), "the log")
}

// A drifted value holding the sections reaches neither the tracking issue
// nor the drift check run, job summary, outputs, report JSON or log.
func TestAmpersandSectionsInADriftDoNotLeak(t *testing.T) {
	fixture := strings.Replace(readFile(t, "testdata/drift/drifted.json"), `"awsValue": "changed-out-of-band"`, `"awsValue": `+mustJSON(ampValue), 1)
	file := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, file, fixture)
	w := newDriftWorkspace(t)
	declareSections(w)
	inv := detect(t, "", 1)
	inv.StdoutFile = file
	w.stub(inv)
	res := w.run(withAssembly(t, withInputs(all, "issue", "true", "mask-values", ampSecret)))
	assert.Equal(t, res.code, 1, res.stdout)
	issues := w.gh.Issues()
	assert.Assert(t, is.Len(issues, 1))
	assert.Check(t, is.Contains(issues[0].Body, "user *** then pass *** for public-setting-ok"))
}
