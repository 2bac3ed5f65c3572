package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// The job summary and the check run say where the picture of what the
// changes touch is only where it is: in the comment as drawn, reduced to
// one node per stack (5,000 changes), left out to fit (a change set whose
// comment is only a headline), or nowhere when the comment could not be
// written (a token without write access). Every picture the comment posts
// keeps within Mermaid's limits, as the real parser measures them.
func TestPicturePointers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stacks   int
		perStack int
		deny     bool
		shown    string
		pointer  string
	}{
		{name: "reduced at 5,000 changes", stacks: 50, perStack: 100, shown: reporters.PictureReduced, pointer: ", reduced to one node per stack to fit."},
		{name: "left out", stacks: 1500, perStack: 4, shown: reporters.PictureLeftOut, pointer: " to fit: it is shown nowhere."},
		{name: "comment not written", stacks: 2, perStack: 4, deny: true, shown: reporters.PictureNotWritten, pointer: " could not be written (the log says why)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			w.gh.DenyWrites = tc.deny
			path := filepath.Join(w.dir, "diff.json")
			writeFile(t, path, cdkdtest.DiffJSON(tc.stacks, tc.perStack))
			res := w.run(map[string]string{"from-json": path})
			assert.Equal(t, res.code, 0, res.stdout)
			where := fmt.Sprintf("the PR comment on [#%d](%s/%s/pull/%d)", prNum, w.vars["GITHUB_SERVER_URL"], w.vars["GITHUB_REPOSITORY"], prNum)
			channels := map[string]string{"summary": res.summary}
			if tc.deny {
				assert.Equal(t, len(w.gh.Comments(owner, repo, prNum)), 0)
				assert.Assert(t, is.Contains(res.stdout, "::warning::cannot write the pull request comment"))
			} else {
				body := w.gh.Comments(owner, repo, prNum)[0].Body
				assert.Equal(t, reporters.PictureShown(body), tc.shown)
				check := w.gh.CheckRuns()[0]
				channels["check run"] = check.Output.Summary
				n := blasttest.Check(t, map[string]string{"comment": body}, nil)
				assert.Equal(t, n, map[string]int{reporters.PictureReduced: 1, reporters.PictureLeftOut: 0}[tc.shown])
			}
			// The report JSON, written again once the comment was, says it too.
			var report struct{ Picture, PictureIn string }
			assert.NilError(t, json.Unmarshal([]byte(readFile(t, res.outputs["report-json"])), &report))
			assert.Equal(t, report.Picture, tc.shown, res.stdout)
			assert.Equal(t, report.PictureIn, where)
			for name, text := range channels {
				assert.Assert(t, is.Contains(text, where+tc.pointer), name)
				assert.Assert(t, !strings.Contains(text, "```mermaid"), name)
				assert.Equal(t, strings.Count(text, "🗺️"), 1, name)
			}
		})
	}
}

// README's one command, a local run, prints the picture of what its
// replacement and deletion touch with the report, as the comment would
// draw it, and the parser accepts it.
func TestLocalPrintsThePicture(t *testing.T) {
	res := runCLI(t, t.TempDir(), []string{"AWS_REGION="}, "--local", "--from-json="+abs(t, "../../testdata/fixtures/diff-v2.json"), "--app="+abs(t, "../../testdata/fixtures/assembly-v2"))
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, is.Contains(res.stdout, "### 🗺️ What the changes touch"))
	assert.Assert(t, !strings.Contains(res.stdout, "is in the PR comment"))
	assert.Equal(t, blasttest.Check(t, map[string]string{"stdout": res.stdout}, nil), 1)
}

// A deleted queue's export is gone from the new templates, but Api still
// imports it: with base-app, the review draws Api's importer as what the
// deletion touches and warns that deploying Storage fails or breaks Api.
func TestPictureFormerImporters(t *testing.T) {
	w := newWorkspace(t)
	manifest := `{"artifacts": {
	  "Storage": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Storage.template.json"}},
	  "Api": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Api.template.json"}}}}`
	api := `{"Resources": {"Worker": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {"Q": {"Fn::ImportValue": "Storage-QueueUrl"}}}}}}}`
	for dir, storage := range map[string]string{
		"base": `{"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}, "Outputs": {"QueueUrl": {"Value": {"Ref": "Queue"}, "Export": {"Name": "Storage-QueueUrl"}}}}`,
		"new":  `{"Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}}`,
	} {
		assert.NilError(t, os.MkdirAll(filepath.Join(w.dir, dir), 0o755))
		writeFile(t, filepath.Join(w.dir, dir, "manifest.json"), manifest)
		writeFile(t, filepath.Join(w.dir, dir, "Api.template.json"), api)
		writeFile(t, filepath.Join(w.dir, dir, "Storage.template.json"), storage)
	}
	path := filepath.Join(w.dir, "diff.json")
	writeFile(t, path, `[{"stack": "Storage", "region": "us-east-1", "changes": [{"logicalId": "Queue", "changeType": "DELETE", "resourceType": "AWS::SQS::Queue"}], "outputChanges": [], "children": []},
	  {"stack": "Api", "region": "us-east-1", "changes": [], "outputChanges": [], "children": []}]`)
	res := w.run(map[string]string{"from-json": path, "app": "new", "base-app": "base"})
	assert.Equal(t, res.code, 0, res.stdout)
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(body, "<code>Worker</code> in <code>Api</code> still imports the export <code>Storage-QueueUrl</code>, which the deleted <code>Queue</code> of <code>Storage</code> fed"), body)
	assert.Equal(t, blasttest.Check(t, map[string]string{"comment": body}, map[string]blasttest.Expect{
		"comment#0": {Vertices: 2 + 2, Texts: []string{"Queue", "Worker", "stack Api"}},
	}), 1)
}

// 20 replaced subnets that 30 functions each reference are 600 edges, more
// than Mermaid draws: the comment's picture names fewer subnets, keeps
// within 500 edges and 50,000 characters (the real parser measures it),
// and counts the rest.
func TestPictureDenseWithinMermaidsLimits(t *testing.T) {
	w := newWorkspace(t)
	var resources, changes []string
	var refs []string
	for i := range 20 {
		id := fmt.Sprintf("Subnet%02d", i)
		resources = append(resources, fmt.Sprintf(`"%s": {"Type": "AWS::EC2::Subnet", "Properties": {"CidrBlock": "10.0.%d.0/24"}}`, id, i))
		changes = append(changes, fmt.Sprintf(`{"logicalId": "%s", "changeType": "UPDATE", "resourceType": "AWS::EC2::Subnet", "propertyChanges": [{"path": "CidrBlock", "oldValue": "10.0.%d.0/24", "newValue": "10.1.%d.0/24", "requiresReplacement": true}]}`, id, i, i))
		refs = append(refs, fmt.Sprintf(`{"Ref": "%s"}`, id))
	}
	for i := range 30 {
		resources = append(resources, fmt.Sprintf(`"Function%02d": {"Type": "AWS::Lambda::Function", "Properties": {"VpcConfig": {"SubnetIds": [%s]}}}`, i, strings.Join(refs, ", ")))
	}
	asm := filepath.Join(w.dir, "cdk.out")
	assert.NilError(t, os.MkdirAll(asm, 0o755))
	writeFile(t, filepath.Join(asm, "manifest.json"), `{"artifacts": {"Network": {"type": "aws:cloudformation:stack", "environment": "aws://unknown-account/us-east-1", "properties": {"templateFile": "Network.template.json"}}}}`)
	writeFile(t, filepath.Join(asm, "Network.template.json"), `{"Resources": {`+strings.Join(resources, ",\n")+`}}`)
	path := filepath.Join(w.dir, "diff.json")
	writeFile(t, path, `[{"stack": "Network", "region": "us-east-1", "changes": [`+strings.Join(changes, ",\n")+`], "outputChanges": [], "children": []}]`)
	res := w.run(map[string]string{"from-json": path, "app": "cdk.out"})
	assert.Equal(t, res.code, 0, res.stdout)
	body := w.gh.Comments(owner, repo, prNum)[0].Body
	assert.Equal(t, reporters.PictureShown(body), reporters.PictureDrawn)
	blocks := blasttest.Blocks(body)
	assert.Equal(t, len(blocks), 1)
	edges := strings.Count(blocks[0], " --> ")
	assert.Assert(t, edges <= 500 && edges >= 200, "%d edges", edges)
	assert.Assert(t, is.Contains(blocks[0], `"and 10 more"`))
	assert.Equal(t, blasttest.Check(t, map[string]string{"comment": body}, map[string]blasttest.Expect{
		"comment#0": {Vertices: -1, Texts: []string{"Subnet00", "Function29"}},
	}), 1)
}

// When the state record of a stack with a deletion cannot be read, or is
// not in the state bucket, the review says that what referenced the
// deleted resources there is unknown.
func TestPictureStateRecordUnreadable(t *testing.T) {
	for name, tc := range map[string]struct {
		objects map[string]string
		note    string
	}{
		"unreadable": {map[string]string{"cdkd/Storage/us-east-1/state.json": "{not a state record"}, "The state record of <code>Storage</code> could not be read (the log says why)"},
		"missing":    {map[string]string{"cdkd/Other/us-east-1/state.json": "{}"}, "No state record of <code>Storage</code> was found in the state bucket"},
	} {
		t.Run(name, func(t *testing.T) {
			w := newDeployWorkspace(t, reviewedSHA)
			useAssembly(t, w, "testdata/picture/assembly")
			aws := startAWS(t)
			key := w.vars["INPUT_FINGERPRINT-KEY"]
			w.useAWS(aws)
			w.vars["INPUT_FINGERPRINT-KEY"] = key
			bucket := "unreadable-" + unique(t)
			aws.createBucket(t, bucket, tc.objects)
			w.stub(gateDiff(t, "testdata/picture/diff.json"))
			w.onPullRequest(reviewedSHA)
			res := w.run(diffInputs(), "CDKD_STATE_BUCKET="+bucket)
			assert.Equal(t, res.code, 0, res.stdout)
			body := prComment(t, w.gh).Body
			assert.Assert(t, is.Contains(body, tc.note+": what referenced its deleted resources where they were deployed is unknown, and the picture does not show it."))
			assert.Assert(t, !strings.Contains(body, "QueuePolicy3A4B5C6D"), "nothing from the record is drawn")
		})
	}
}
