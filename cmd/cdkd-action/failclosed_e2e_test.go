package main

// Fail closed (issue 13): what the action cannot place it hides, what it
// hides by position it also knows by value, and it knows before it prints.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
)

// driftJSON writes a one-stack drift report (StackA, us-east-1) with the
// given drifted resources and returns its path.
func driftJSON(t *testing.T, drifted ...map[string]any) string {
	t.Helper()
	b, err := json.Marshal([]map[string]any{{"stack": "StackA", "region": "us-east-1", "drifted": drifted,
		"clean": []any{}, "notSupported": []any{}, "skipped": []any{}, "notCompared": []any{}}})
	assert.NilError(t, err)
	path := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, path, string(b))
	return path
}

func driftedResource(id, typ, path string, state, aws any) map[string]any {
	return map[string]any{"logicalId": id, "type": typ, "referencesUnresolved": false,
		"changes": []map[string]any{{"path": path, "stateValue": state, "awsValue": aws}}}
}

// Item 1: drift with all and no assembly lists the stacks in the state
// bucket and masks what their records reference before cdkd runs: a cdkd
// that fails without a report (so it names no stack) cannot print a value
// stored behind a reference in state.
func TestDriftAllReadsTheStateBucketBeforeCdkdPrints(t *testing.T) {
	bucket := randomBucket(t)
	aws := stateAWS(t, bucket, map[string]string{"StackC": "state-stackC.json"})
	w := newDriftWorkspace(t)
	w.useAWS(aws)
	crash := detect(t, "", 1, "--state-bucket", bucket)
	crash.Stderr = "Error: read failed for http://localhost:4566/000000000000/s3cr3t-pw-from-sm\n"
	w.stub(crash)
	res := w.run(withInputs(all, "state-bucket", bucket, "issue", "true"))
	assert.Equal(t, res.code, 3, res.stdout)
	assertHidden(t, res.channels, sampleSecrets...)
	assertHidden(t, res.channels, "s3cr3t-pw-from-sm")
	mask := strings.Index(res.stdout, "::add-mask::s3cr3t-pw-from-sm")
	assert.Assert(t, mask >= 0 && mask < strings.Index(res.stdout, "::group::cdkd drift"), "registered before cdkd's log:\n%s", res.stdout)
	assert.Assert(t, is.Contains(res.summary, "read failed for"), "cdkd's reason is shown, redacted")
}

// Item 1: a local run without resolve-secrets reads nothing, and says that
// cdkd's text was not redacted against state.
func TestLocalRunWithoutResolveSecretsSaysNothingWasRead(t *testing.T) {
	const note = "cdkd's output is not redacted against its state"
	for _, resolve := range []string{"false", "true"} {
		t.Run("resolve-secrets="+resolve, func(t *testing.T) {
			w := newDriftWorkspace(t)
			w.stub(detect(t, "clean.json", 0))
			res := w.run(withInputs(all, "resolve-secrets", resolve, "app", abs(t, "testdata/drift/assembly")), "GITHUB_ACTIONS=false")
			assert.Equal(t, res.code, 0, res.stdout)
			if resolve == "true" {
				assert.Assert(t, !strings.Contains(res.stdout, note), res.stdout)
				return
			}
			assert.Assert(t, is.Contains(res.stdout, note+": resolve-secrets is off in this local run"))
			assert.Assert(t, is.Contains(res.stdout, "Pass --resolve-secrets"))
			assert.Assert(t, !strings.Contains(res.stdout, "could not read the state"), "nothing was tried:\n%s", res.stdout)
		})
	}
}

// Item 2: a resource removed from or renamed in the template, but still in
// state and in AWS, has positions the assembly cannot tell: its values are
// hidden and marked, with a note saying how to see them; the rest of the
// stack shows as before.
func TestDriftHidesAResourceTheTemplateNoLongerHas(t *testing.T) {
	const old, live = "removed-param-old-9k2w", "removed-param-live-7q4z"
	w := newDriftWorkspace(t)
	inv := detect(t, "", 1)
	inv.StdoutFile = driftJSON(t,
		driftedResource("OldSecretParamA1B2", "AWS::SSM::Parameter", "Value", old, live),
		driftedResource("Queue4A7E3555", "AWS::SQS::Queue", "VisibilityTimeout", 30, 99))
	w.stub(inv)
	res := w.run(withAssembly(t, withInputs(all, "issue", "true")))
	assert.Equal(t, res.code, 1, res.stdout)
	assertHidden(t, res.channels, old, live)
	assertHidden(t, res.channels, old, live)
	for _, s := range []string{res.summary, onlyCheckRun(t, w.gh).Output.Summary, w.gh.Issues()[0].Body} {
		assert.Assert(t, is.Contains(s, "`Value`: `***` → `***` · 🔒 unknown position"), s)
		assert.Assert(t, is.Contains(s, "`VisibilityTimeout`: `30` → `99`"), "a placed resource still shows:\n%s", s)
		assert.Assert(t, is.Contains(s, "Values hidden at StackA/OldSecretParamA1B2: the resource is not in the cloud assembly's template"), s)
		assert.Assert(t, is.Contains(s, "pass the assembly that deployed them as app to see them"), s)
		assert.Assert(t, !strings.Contains(s, "drifts on every run by design"), "not a NoEcho custom-resource response:\n%s", s)
	}
	assert.Assert(t, is.Contains(readFile(t, res.outputs["report-json"]), `"secret":"unknown position"`))
}

// Item 2: the state record is a second source of NoEcho positions: where
// cdkd stored its "***" (state schema 11), the value is NoEcho whatever
// today's template says, and both sides are hidden.
func TestDriftTakesNoEchoPositionsFromTheStateRecord(t *testing.T) {
	const old, live = "stored-elsewhere-5v6b", "live-token-8n9m"
	bucket := randomBucket(t)
	aws := stateAWS(t, bucket, map[string]string{"StackA": "state-stackA-hidden.json"})
	w := newDriftWorkspace(t)
	w.useAWS(aws)
	inv := detect(t, "", 1, "--state-bucket", bucket)
	inv.StdoutFile = driftJSON(t, driftedResource("TopicBFC7AF6E", "AWS::SNS::Topic", "DisplayName", old, live))
	w.stub(inv)
	res := w.run(withAssembly(t, withInputs(all, "state-bucket", bucket)))
	assert.Equal(t, res.code, 1, res.stdout)
	assertHidden(t, res.channels, old, live)
	assert.Assert(t, is.Contains(res.summary, "`DisplayName`: `***` → `***` · 🔒 NoEcho"), res.summary)
}

// Item 2 and 4: a nested stack whose template is not in the assembly is an
// unknown position, never "no secrets here" (and not a reason to stop).
func TestDriftNestedTemplateMissingIsHidden(t *testing.T) {
	const old, live = "nested-old-3f4g", "nested-live-5h6j"
	asm := nestedAssembly(t, false)
	w := newDriftWorkspace(t)
	inv := detect(t, "", 1)
	path := filepath.Join(t.TempDir(), "drift.json")
	b, err := json.Marshal([]map[string]any{{"stack": "Parent~Child", "region": "us-east-1",
		"drifted":      []any{driftedResource("P", "AWS::SSM::Parameter", "Value", old, live)},
		"clean":        []any{},
		"notSupported": []any{}, "skipped": []any{}, "notCompared": []any{}}})
	assert.NilError(t, err)
	writeFile(t, path, string(b))
	inv.StdoutFile = path
	w.stub(inv)
	res := w.run(withInputs(all, "app", asm))
	assert.Equal(t, res.code, 1, res.stdout)
	assertHidden(t, res.channels, old, live)
	report := readFile(t, res.outputs["report-json"])
	assert.Assert(t, is.Contains(report, "Values hidden in Parent~Child: the template of nested stack Parent~Child is not in the cloud assembly"), report)
	assert.Assert(t, is.Contains(report, "pass the assembly that deployed it, with its nested templates, as app to see them"), report)
	assert.Assert(t, is.Contains(res.summary, "Every value in this stack is hidden"), res.summary)
}

// Item 4: an assembly synthesized with --asset-metadata=false names its
// nested templates only in the asset manifest; they are read from there,
// so the nested stack's NoEcho positions are hidden in a diff.
func TestDiffFindsNestedTemplatesThroughTheAssetManifest(t *testing.T) {
	const old, next = "child-old-secret-7x1c", "child-new-secret-8y2d"
	asm := nestedAssembly(t, true)
	w := newWorkspace(t)
	path := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, path, `[{"stack":"Parent","region":"us-east-1","changes":[],"outputChanges":[],"children":[
		{"stack":"Child","region":"us-east-1","changes":[{"logicalId":"P","changeType":"UPDATE","resourceType":"AWS::SSM::Parameter",
		"propertyChanges":[{"path":"Value","oldValue":"`+old+`","newValue":"`+next+`","requiresReplacement":false},
		{"path":"Description","oldValue":"plain-a","newValue":"plain-b","requiresReplacement":false}]}],"outputChanges":[]}]}]`)
	res := w.run(map[string]string{"from-json": path, "app": asm})
	assert.Equal(t, res.code, 0, res.stdout)
	assertHidden(t, res.channels, old, next)
	assert.Assert(t, is.Contains(res.summary, "🔒 NoEcho"), res.summary)
	assert.Assert(t, is.Contains(res.summary, "plain-b"), "a placed, non-secret value shows:\n%s", res.summary)
	assert.Assert(t, !strings.Contains(res.summary, "unknown position"), res.summary)
}

// Item 2: without any assembly a diff's changed values are hidden too,
// with the note that says how to see them.
func TestDiffWithoutAssemblyHidesChangedValues(t *testing.T) {
	const old, next = "no-asm-old-value-2p", "no-asm-new-value-3q"
	w := newWorkspace(t)
	path := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, path, `[{"stack":"StackA","region":"us-east-1","changes":[{"logicalId":"P","changeType":"UPDATE","resourceType":"AWS::SSM::Parameter",
		"propertyChanges":[{"path":"Value","oldValue":"`+old+`","newValue":"`+next+`","requiresReplacement":false}]}],"outputChanges":[]}]`)
	res := w.run(map[string]string{"from-json": path})
	assert.Equal(t, res.code, 0, res.stdout)
	assertHidden(t, res.channels, old, next)
	assert.Assert(t, is.Contains(res.summary, "`Value`"), res.summary)
	assert.Assert(t, is.Contains(res.summary, "🔒 unknown position"), res.summary)
	assert.Assert(t, is.Contains(res.summary, "pass the assembly directory (e.g. cdk.out) as app"), res.summary)
}

// Item 3: a value hidden because of where it sits (here the live value at
// a NoEcho position, known only from cdkd's report) is also hidden by
// value: in cdkd's own log of the detection, held back until it is known,
// and in the revert's failure line printed later; and the runner is asked
// to mask it before either is printed.
func TestDriftHiddenByPositionIsKnownByValue(t *testing.T) {
	const live = "rotated-live-noecho-4k8s"
	w := newDriftWorkspace(t)
	inv := detect(t, "", 1)
	inv.StdoutFile = driftJSON(t, driftedResource("NoEchoParam2FCCC8BD", "AWS::SSM::Parameter", "Value", "hunter2-noecho-v1", live))
	inv.Stderr = "NoEchoParam2FCCC8BD (AWS::SSM::Parameter): Value differs (" + live + ")\n"
	revert := detect(t, "", 2, "--revert", "-y")
	revert.Stderr = "✗ StackA/NoEchoParam2FCCC8BD (AWS::SSM::Parameter): could not set Value from " + live + " — AccessDenied\n" +
		"PartialFailureError: 1 resource(s) did not revert\n"
	w.stub(inv, revert, cdkdtest.Invocation{ArgsContain: []string{"drift", "--all", "--json"}, StdoutFile: abs(t, "testdata/drift/clean.json")})
	res := w.run(withAssembly(t, withInputs(all, "drift-resolution", "revert", "issue", "true")))
	assert.Equal(t, res.code, 3, res.stdout)
	assertHidden(t, res.channels, live)
	assertHidden(t, res.channels, live)
	mask := strings.Index(res.stdout, "::add-mask::"+live)
	assert.Assert(t, mask >= 0, "the runner is asked to mask it:\n%s", res.stdout)
	assert.Assert(t, mask < strings.Index(res.stdout, "Value differs ("), "before cdkd's log shows it:\n%s", res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "Value differs (***)"), res.stdout)
	assert.Assert(t, is.Contains(res.summary, "could not set Value from "), "the revert's failure line is reported, redacted:\n%s", res.summary)
}

// nestedAssembly writes an assembly with stack Parent and its nested stack
// Child (NoEcho parameter ChildPw read at P.Value). The child's template is
// named only in the asset manifest (--asset-metadata=false) when withChild,
// and missing otherwise.
func nestedAssembly(t *testing.T, withChild bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cdk.out")
	files := map[string]string{
		"manifest.json": `{"version":"55.0.0","artifacts":{"Parent":{"type":"aws:cloudformation:stack","environment":"aws://unknown-account/us-east-1",
			"properties":{"templateFile":"Parent.template.json"}}}}`,
		"Parent.template.json": `{"Resources":{"Child":{"Type":"AWS::CloudFormation::Stack","Properties":{"TemplateURL":{"Fn::Join":["",
			["https://s3.",{"Ref":"AWS::Region"},".",{"Ref":"AWS::URLSuffix"},"/",{"Fn::Sub":"cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}"},
			"/5e6f7a8b.json"]]}}}}}`,
		"Parent.assets.json": `{"version":"55.0.0","files":{"5e6f7a8b":{"displayName":"Parent/Child Nested Template",
			"source":{"path":"ParentChild1A2B3C4D.nested.template.json","packaging":"file"},
			"destinations":{"current":{"bucketName":"b","objectKey":"5e6f7a8b.json"}}}}}`,
	}
	if withChild {
		files["ParentChild1A2B3C4D.nested.template.json"] = `{"Parameters":{"ChildPw":{"Type":"String","NoEcho":true}},
			"Resources":{"P":{"Type":"AWS::SSM::Parameter","Properties":{"Type":"String","Value":{"Ref":"ChildPw"},"Description":"plain"}}}}`
	}
	assert.NilError(t, os.MkdirAll(dir, 0o755))
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	return dir
}

// Item 1: the hold is bounded. What cdkd prints past it while discovery is
// unfinished is dropped and counted, never printed.
func TestDriftHeldLogIsBounded(t *testing.T) {
	w := newDriftWorkspace(t)
	inv := detect(t, "clean.json", 0)
	filler := strings.Repeat("x", 1023) + "\n"
	inv.Stderr = "first line of cdkd\n" + strings.Repeat(filler, 1100) + "last line past the hold\n"
	w.stub(inv)
	res := w.run(withAssembly(t, all))
	assert.Equal(t, res.code, 0, res.stdout[:min(len(res.stdout), 2000)])
	assert.Assert(t, is.Contains(res.stdout, "first line of cdkd"))
	assert.Assert(t, !strings.Contains(res.stdout, "last line past the hold"))
	assert.Assert(t, is.Contains(res.stdout, "line(s) of cdkd's output are hidden: they were held back until every secret was known, and the hold is bounded at 1048576 bytes"))
}

// Hundreds of created resources missing from cdk.out's template: the note
// naming them, in the report and again in the comment's hidden header,
// once made a PR comment longer than GitHub accepts (api-failed). Every
// channel names the first few and counts the rest; the report JSON has all.
func TestDiffHugeHiddenNoteFitsEveryChannel(t *testing.T) {
	const n = 520
	var changes []string
	for i := range n {
		changes = append(changes, fmt.Sprintf(`{"logicalId":"CreatedParameterWithAVeryLongLogicalIdentifierForThisTest%04dABCDEF12","changeType":"CREATE","resourceType":"AWS::SSM::Parameter",
			"propertyChanges":[{"path":"Value","newValue":"created-%d","requiresReplacement":false},
			{"path":"Description","newValue":"a parameter long enough to fill the report %d","requiresReplacement":false}]}`, i, i, i))
	}
	path := filepath.Join(t.TempDir(), "diff.json")
	writeFile(t, path, `[{"stack":"StackA","region":"us-east-1","changes":[`+strings.Join(changes, ",")+`],"outputChanges":[]}]`)
	w := newWorkspace(t)
	inv := diffInvocation(t, path)
	inputs := withAssembly(t, all)
	inv.Args = append(inv.Args, "--app", inputs["app"])
	w.stub(inv)
	res := w.run(inputs)
	assert.Equal(t, res.code, 0, res.stdout)
	comments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(comments, 1), res.stdout)
	body := comments[0].Body
	assert.Assert(t, utf8.RuneCountInString(body) <= 65536, "%d characters", utf8.RuneCountInString(body))
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	for name, s := range map[string]string{"comment": body, "check run": runs[0].Output.Summary, "job summary": res.summary} {
		assert.Assert(t, is.Contains(s, "Values hidden at StackA/CreatedParameterWithAVeryLongLogicalIdentifierForThisTest0000ABCDEF12, "), "%s:\n%.2000s", name, s)
		assert.Assert(t, is.Regexp(`and \d+ more \(the full list is in the report JSON\)`, s), "%s:\n%.2000s", name, s)
	}
	assert.Assert(t, is.Contains(readFile(t, res.outputs["report-json"]), "CreatedParameterWithAVeryLongLogicalIdentifierForThisTest0519ABCDEF12"), "the report JSON has the full list")
}
