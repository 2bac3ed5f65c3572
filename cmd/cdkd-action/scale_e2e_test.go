package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/plan"
)

// A plan for diff reads the assembly and needs no cdkd and no API.
func TestPlanForDiffFromTheAssembly(t *testing.T) {
	w := newWorkspace(t)
	app := abs(t, "../../testdata/cdkd-samples/assembly-v1")
	res := w.run(map[string]string{"command": "plan", "all": "true", "app": app, "shards": "2", "cdkd-path": "/nonexistent/cdkd"})
	assert.Equal(t, res.code, 0, res.stdout)
	var m plan.Matrix
	assert.NilError(t, json.Unmarshal([]byte(res.outputs["matrix"]), &m), res.outputs["matrix"])
	assert.Equal(t, res.outputs["shard-count"], "2")
	assert.Assert(t, is.Len(m.Shard, 2))
	var stacks []string
	for _, s := range m.Shard {
		assert.Assert(t, s.Resources > 0)
		assert.Equal(t, s.Plan, m.Shard[0].Plan)
		stacks = append(stacks, s.Stacks)
	}
	assert.DeepEqual(t, stacks, []string{"StackA", "StackB"})
	assert.Assert(t, is.Contains(res.summary, "| 1-of-2 |"))
	assert.Equal(t, len(w.gh.Requests()), 0, "a plan writes nothing through the API")

	again := w.run(map[string]string{"command": "plan", "all": "true", "app": app, "shards": "2", "cdkd-path": "/nonexistent/cdkd"})
	assert.Equal(t, again.outputs["matrix"], res.outputs["matrix"], "the same inputs give the same plan")
}

// A plan for diff without an assembly is bad input, said in one sentence.
func TestPlanForDiffNeedsAnAssembly(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"command": "plan", "all": "true", "app": "node app.js", "cdkd-path": "/nonexistent/cdkd"})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "bad-input")
	assert.Assert(t, is.Contains(res.stdout, "input app: a plan for diff reads the stacks"))
	assert.Assert(t, is.Contains(res.summary, "input app"))
}

// A plan for drift lists what is deployed, from cdkd's state listing:
// stacks gone from the code are still checked, nested records go with
// their parent.
func TestPlanForDriftFromTheStateBucket(t *testing.T) {
	w := newWorkspace(t)
	rows := `[{"stackName":"Api","region":"us-east-1","resourceCount":300,"lastModified":1,"locked":false},
{"stackName":"Api~Db","region":"us-east-1","resourceCount":200,"lastModified":1,"locked":false},
{"stackName":"Retired","region":"us-east-1","resourceCount":90,"lastModified":1,"locked":false},
{"stackName":"Web","region":"us-east-1","resourceCount":420,"lastModified":1,"locked":false}]`
	listing := filepath.Join(t.TempDir(), "list.json")
	writeFile(t, listing, rows)
	w.stub(cdkdtest.Invocation{Args: []string{"state", "list", "--long", "--json", "--state-bucket", "b"}, StdoutFile: listing})
	res := w.run(map[string]string{"command": "plan", "for": "drift", "all": "true", "state-bucket": "b"})
	assert.Equal(t, res.code, 0, res.stdout)
	var m plan.Matrix
	assert.NilError(t, json.Unmarshal([]byte(res.outputs["matrix"]), &m))
	// 1,010 resources: auto gives three shards of about 400.
	assert.Equal(t, res.outputs["shard-count"], "3")
	got := map[string]int{}
	for _, s := range m.Shard {
		got[s.Stacks] = s.Resources
	}
	assert.DeepEqual(t, got, map[string]int{"Api": 500, "Web": 420, "Retired": 90})
}

// A shard run writes its report, summary and outputs, and nothing through
// the API, whatever publish says (left at its default, it posted a partial
// review with partial digests): it says so then. Its report names the shard
// and the plan.
func TestShardRunPublishesNothing(t *testing.T) {
	for _, publish := range []string{"false", ""} {
		t.Run("publish="+publish, func(t *testing.T) {
			w := newWorkspace(t)
			inv := diffInvocation(t, "../../testdata/fixtures/diff-v2.json")
			inv.Args = []string{"diff", "StackA", "--json", "--recursive"}
			w.stub(inv)
			in := map[string]string{"stacks": "StackA", "shard": `{"id":"1-of-2","stacks":"StackA","resources":9,"plan":"0123456789ab"}`}
			if publish != "" {
				in["publish"] = publish
			}
			res := w.run(in)
			assert.Equal(t, res.code, 0, res.stdout)
			assert.Equal(t, len(w.gh.Requests()), 0, "a shard writes nothing through the API")
			warned := strings.Contains(res.stdout, "::warning::shard 1-of-2 publishes nothing through the API although publish is true")
			assert.Equal(t, warned, publish == "", res.stdout)
			assert.Assert(t, res.outputs["digest"] != "")
			assert.Assert(t, is.Contains(res.summary, "cdkd diff"))
			path := res.outputs["report-json"]
			if !filepath.IsAbs(path) {
				path = filepath.Join(w.dir, path)
			}
			b, err := os.ReadFile(path)
			assert.NilError(t, err)
			var rep struct {
				HeadSHA string `json:"headSha"`
				Shard   struct{ ID, Plan string }
			}
			assert.NilError(t, json.Unmarshal(b, &rep))
			assert.Equal(t, rep.HeadSHA, headSHA)
			assert.Equal(t, rep.Shard.ID, "1-of-2")
			assert.Equal(t, rep.Shard.Plan, "0123456789ab")
		})
	}
}

// Asking for more shards than there are stacks gives fewer, and says so.
func TestPlanSaysWhenItGivesFewerShards(t *testing.T) {
	w := newWorkspace(t)
	app := abs(t, "../../testdata/cdkd-samples/assembly-v1")
	res := w.run(map[string]string{"command": "plan", "all": "true", "app": app, "shards": "64", "cdkd-path": "/nonexistent/cdkd"})
	assert.Equal(t, res.code, 0, res.stdout)
	n := res.outputs["shard-count"]
	assert.Assert(t, n != "64", n)
	assert.Assert(t, is.Contains(res.stdout, "shards asks for 64, but the plan has "+n), res.stdout)
}

// A shard's stacks input must be the shard's own.
func TestShardStacksMustMatch(t *testing.T) {
	w := newWorkspace(t)
	res := w.run(map[string]string{"stacks": "StackB", "publish": "false", "shard": `{"id":"1-of-2","stacks":"StackA","plan":"0123456789ab"}`, "cdkd-path": "/nonexistent/cdkd"})
	assert.Equal(t, res.code, 2, res.stdout)
	assert.Assert(t, strings.Contains(res.stdout, `input stacks: expected the shard's stacks "StackA"`), res.stdout)
}

// splitDiff indexes a saved cdkd diff --json by stack, so a shard's cdkd
// can print only its own stacks (see shardDiff).
func splitDiff(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	var stacks []json.RawMessage
	assert.NilError(t, json.Unmarshal([]byte(readFile(t, path)), &stacks))
	out := map[string]json.RawMessage{}
	for _, raw := range stacks {
		var s struct{ Stack string }
		assert.NilError(t, json.Unmarshal(raw, &s))
		out[s.Stack] = raw
	}
	return out
}

// shardDiff writes what `cdkd diff <names...> --json` prints.
func shardDiff(t *testing.T, perStack map[string]json.RawMessage, names []string) string {
	t.Helper()
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, string(perStack[n]))
	}
	f := filepath.Join(t.TempDir(), "shard.json")
	writeFile(t, f, "["+strings.Join(parts, ",")+"]")
	return f
}

// planSampleAssembly plans the sample assembly into two shards.
func planSampleAssembly(t *testing.T, w *workspace) string {
	t.Helper()
	app := abs(t, "../../testdata/cdkd-samples/assembly-v1")
	planned := w.run(map[string]string{"command": "plan", "all": "true", "app": app, "shards": "2"})
	assert.Equal(t, planned.code, 0, planned.stdout)
	return planned.outputs["matrix"]
}

// runShards runs every shard of matrix with publish: false and collects
// their reports into one folder per shard, as actions/download-artifact
// lays them out. It returns the folder.
func runShards(t *testing.T, w *workspace, matrix string, perStack map[string]json.RawMessage, extra ...string) string {
	t.Helper()
	var m plan.Matrix
	assert.NilError(t, json.Unmarshal([]byte(matrix), &m))
	reports := filepath.Join(w.dir, "reports")
	for _, sh := range m.Shard {
		names := strings.Fields(sh.Stacks)
		inv := diffInvocation(t, shardDiff(t, perStack, names))
		inv.Args = append(append([]string{"diff"}, names...), "--json", "--recursive")
		w.stub(inv)
		b, _ := json.Marshal(sh)
		in := map[string]string{"stacks": sh.Stacks, "publish": "false", "shard": string(b)}
		for i := 0; i+1 < len(extra); i += 2 {
			in[extra[i]] = extra[i+1]
		}
		res := w.run(in)
		assert.Equal(t, res.code, 0, res.stdout)
		dir := filepath.Join(reports, "cdkd-diff-"+sh.ID)
		assert.NilError(t, os.MkdirAll(dir, 0o755))
		writeFile(t, filepath.Join(dir, "diff.json"), readFile(t, res.outputs["report-json"]))
	}
	return reports
}

// Shards of a diff, aggregated, give reviewers what one run over all the
// stacks gives: the same comment, digest, counts and outputs.
func TestAggregateEqualsTheSingleRun(t *testing.T) {
	fixture := "../../testdata/fixtures/diff-v2.json"
	single := newWorkspace(t)
	single.stub(diffInvocation(t, fixture))
	one := single.run(map[string]string{"all": "true"})
	assert.Equal(t, one.code, 0, one.stdout)

	w := newWorkspace(t)
	matrix := planSampleAssembly(t, w)
	reports := runShards(t, w, matrix, splitDiff(t, fixture))
	// Without an assembly every value is hidden: the shards' reports carry
	// the fingerprints of what their "***" hide, which the digest covers.
	shard := readFile(t, filepath.Join(reports, "cdkd-diff-1-of-2", "diff.json"))
	assert.Assert(t, is.Contains(shard, `Mask":"fp1:`) /* the report's oldMask and newMask keys */, shard)
	agg := w.run(map[string]string{"command": "aggregate", "reports": reports, "matrix": matrix})
	assert.Equal(t, agg.code, 0, agg.stdout)

	oneBody := single.gh.Comments(owner, repo, prNum)[0].Body
	aggComments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(aggComments, 1))
	aggBody := strings.ReplaceAll(aggComments[0].Body, w.gh.URL, single.gh.URL)
	assert.Equal(t, aggBody, oneBody)
	for _, name := range []string{"digest", "has-changes", "to-create", "to-update", "to-replace", "to-delete", "outputs-changed"} {
		assert.Equal(t, agg.outputs[name], one.outputs[name], name)
	}
	assert.Assert(t, strings.HasPrefix(agg.outputs["digest"], "v3:"))
	runs := reportRuns(w.gh)
	assert.Assert(t, is.Len(runs, 1))
	assert.Assert(t, strings.HasSuffix(runs[0].ExternalID, ":"+one.outputs["digest"]), "the check run vouches for the same digest: %s", runs[0].ExternalID)
}

// A shard that did not report, or reported for another plan, never reads as
// "no changes": the aggregate fails naming it, without a digest a deploy
// could match, and still shows what the other shards found.
func TestAggregateNamesTheMissingShard(t *testing.T) {
	fixture := "../../testdata/fixtures/diff-v2.json"
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, reports string)
		want   string
	}{
		{"missing", func(t *testing.T, reports string) {
			assert.NilError(t, os.RemoveAll(filepath.Join(reports, "cdkd-diff-2-of-2")))
		}, "shard 2-of-2 (StackB) has no report"},
		{"another plan", func(t *testing.T, reports string) {
			f := filepath.Join(reports, "cdkd-diff-2-of-2", "diff.json")
			var rep map[string]any
			assert.NilError(t, json.Unmarshal([]byte(readFile(t, f)), &rep))
			rep["shard"].(map[string]any)["plan"] = "ffffffffffff"
			b, _ := json.Marshal(rep)
			writeFile(t, f, string(b))
		}, "shard 2-of-2's report is from another plan"},
		{"failed", func(t *testing.T, reports string) {
			f := filepath.Join(reports, "cdkd-diff-2-of-2", "diff.json")
			var rep map[string]any
			assert.NilError(t, json.Unmarshal([]byte(readFile(t, f)), &rep))
			rep["error"], rep["stacks"] = "cdkd could not read the state bucket", []any{}
			b, _ := json.Marshal(rep)
			writeFile(t, f, string(b))
		}, "shard 2-of-2 failed: cdkd could not read the state bucket"},
		{"another commit", func(t *testing.T, reports string) {
			f := filepath.Join(reports, "cdkd-diff-1-of-2", "diff.json")
			writeFile(t, f, strings.ReplaceAll(readFile(t, f), headSHA, strings.Repeat("2", 40)))
		}, "shard 1-of-2's report is for commit 2222222"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			matrix := planSampleAssembly(t, w)
			reports := runShards(t, w, matrix, splitDiff(t, fixture))
			tc.tamper(t, reports)
			agg := w.run(map[string]string{"command": "aggregate", "reports": reports, "matrix": matrix})
			assert.Equal(t, agg.code, 3, agg.stdout)
			assert.Equal(t, agg.outputs["failure-reason"], "shard-failed")
			assert.Equal(t, agg.outputs["digest"], "")
			assert.Assert(t, is.Contains(agg.stdout, tc.want))
			comments := w.gh.Comments(owner, repo, prNum)
			assert.Assert(t, is.Len(comments, 1))
			assert.Assert(t, is.Contains(comments[0].Body, "Incomplete:"))
			assert.Assert(t, is.Contains(comments[0].Body, tc.want))
			h, ok := marker.Parse(comments[0].Body)
			assert.Assert(t, ok)
			assert.Equal(t, h.Digest, "", "an incomplete review vouches for no digest")
			runs := reportRuns(w.gh)
			assert.Assert(t, is.Len(runs, 1))
			assert.Equal(t, runs[0].Conclusion, "failure")
		})
	}
}

// driftShardFixture writes the stacks of a saved cdkd drift --json whose
// names are in keep, as a shard checking only them would print it.
func driftShardFixture(t *testing.T, keep []string, fixtures ...string) string {
	t.Helper()
	var out []json.RawMessage
	for _, f := range fixtures {
		var stacks []json.RawMessage
		assert.NilError(t, json.Unmarshal([]byte(readFile(t, "testdata/drift/"+f)), &stacks))
		for _, raw := range stacks {
			var s struct{ Stack string }
			assert.NilError(t, json.Unmarshal(raw, &s))
			if slices.Contains(keep, s.Stack) {
				out = append(out, raw)
			}
		}
	}
	b, err := json.Marshal(out)
	assert.NilError(t, err)
	path := filepath.Join(t.TempDir(), "drift.json")
	writeFile(t, path, string(b))
	return path
}

// runDriftShards runs each shard of a fixed plan (StackA | StackB StackC)
// with publish: false, answering from fixtures with the given exit codes,
// and lays their reports out as downloaded artifacts.
func runDriftShards(t *testing.T, w *workspace, exits map[string]int, fixtures ...string) (string, string) {
	t.Helper()
	m := plan.Split([]plan.Stack{{Name: "StackA", Resources: 10}, {Name: "StackB", Resources: 1}, {Name: "StackC", Resources: 9}}, 2)
	matrix, err := json.Marshal(m)
	assert.NilError(t, err)
	reports := filepath.Join(w.dir, "reports")
	for _, sh := range m.Shard {
		names := strings.Fields(sh.Stacks)
		w.stub(cdkdtest.Invocation{
			Args:       append(append([]string{"drift"}, names...), "--json"),
			Env:        map[string]string{"CDKD_NO_LIVE": "1"},
			StdoutFile: driftShardFixture(t, names, fixtures...),
			Exit:       exits[sh.Stacks],
		})
		b, _ := json.Marshal(sh)
		res := w.run(map[string]string{"stacks": sh.Stacks, "publish": "false", "shard": string(b), "issue": "true"})
		assert.Equal(t, res.code, 1, "a shard that drifts or cannot check everything fails its job: %s", res.stdout)
		dir := filepath.Join(reports, "cdkd-drift-"+sh.ID)
		assert.NilError(t, os.MkdirAll(dir, 0o755))
		writeFile(t, filepath.Join(dir, "drift.json"), readFile(t, res.outputs["report-json"]))
	}
	assert.Equal(t, len(w.gh.Requests()), 0, "shards write nothing through the API")
	return reports, string(matrix)
}

// Sharded drift aggregates into the one check run and tracking issue a
// single run gives.
func TestAggregateDriftEqualsTheSingleRun(t *testing.T) {
	fixtures := []string{"drifted.json", "drifted-stackC.json"}
	single := newDriftWorkspace(t)
	single.stub(cdkdtest.Invocation{
		Args: []string{"drift", "--all", "--json"}, Env: map[string]string{"CDKD_NO_LIVE": "1"}, Exit: 1,
		StdoutFile: driftShardFixture(t, []string{"StackA", "StackB", "StackC"}, fixtures...),
	})
	one := single.run(map[string]string{"all": "true", "issue": "true"})
	assert.Equal(t, one.code, 1, one.stdout)
	assert.Equal(t, one.outputs["drift-status"], "drifted")

	w := newDriftWorkspace(t)
	reports, matrix := runDriftShards(t, w, map[string]int{"StackA": 1, "StackB StackC": 1}, fixtures...)
	agg := w.run(map[string]string{"command": "aggregate", "for": "drift", "reports": reports, "matrix": matrix, "issue": "true"})
	assert.Equal(t, agg.code, one.code, agg.stdout)
	for _, name := range []string{"drift-status", "drifted-count", "not-compared-count", "failure-reason"} {
		assert.Equal(t, agg.outputs[name], one.outputs[name], name)
	}
	runs, oneRuns := w.gh.CheckRuns(), single.gh.CheckRuns()
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, runs[0].Name, oneRuns[0].Name)
	assert.Equal(t, runs[0].Conclusion, oneRuns[0].Conclusion)
	assert.Equal(t, runs[0].Output.Title, oneRuns[0].Output.Title)
	issues, oneIssues := w.gh.Issues(), single.gh.Issues()
	assert.Assert(t, is.Len(issues, 1), "one tracking issue")
	assert.Equal(t, strings.ReplaceAll(issues[0].Body, w.gh.URL, single.gh.URL), oneIssues[0].Body)
}

// Drift in one shard outranks a refused comparison in another, as in one
// run; the refusal's cause, which that shard's exit code told, still shows.
func TestAggregateDriftOutranksIncomplete(t *testing.T) {
	w := newDriftWorkspace(t)
	reports, matrix := runDriftShards(t, w, map[string]int{"StackA": 1, "StackB StackC": 2}, "drifted.json", "refused.json")
	agg := w.run(map[string]string{"command": "aggregate", "for": "drift", "reports": reports, "matrix": matrix})
	assert.Equal(t, agg.code, 1, agg.stdout)
	assert.Equal(t, agg.outputs["failure-reason"], "drift")
	assert.Equal(t, agg.outputs["drift-status"], "drifted")
	assert.Equal(t, agg.outputs["not-compared-count"], "1")
	assert.Assert(t, is.Contains(agg.summary, "**Refused** (1)"))
}

// A drift shard that did not report makes the whole check an error, never
// clean or "drift only where we looked"; the rest still shows.
func TestAggregateDriftNamesTheMissingShard(t *testing.T) {
	w := newDriftWorkspace(t)
	reports, matrix := runDriftShards(t, w, map[string]int{"StackA": 1, "StackB StackC": 2}, "drifted.json", "refused.json")
	assert.NilError(t, os.RemoveAll(filepath.Join(reports, "cdkd-drift-1-of-2")))
	agg := w.run(map[string]string{"command": "aggregate", "for": "drift", "reports": reports, "matrix": matrix})
	assert.Equal(t, agg.code, 3, agg.stdout)
	assert.Equal(t, agg.outputs["failure-reason"], "shard-failed")
	assert.Equal(t, agg.outputs["drift-status"], "error")
	assert.Assert(t, is.Contains(agg.summary, "shard 1-of-2 (StackA) has no report"))
	assert.Assert(t, is.Contains(agg.summary, "StackC"), "the other shard's stacks still show")
	runs := w.gh.CheckRuns()
	assert.Assert(t, is.Len(runs, 1))
	assert.Equal(t, runs[0].Conclusion, "failure")
}

// A diff too large for the comment, spread over four shards, still gives
// the single run's comment (shortened the same way), digest and outputs.
// With no assembly every value is hidden: each shard fingerprints its own,
// and the whole holds more than the digest fingerprints (the bound), which
// the aggregate counts from the tokens its shards carry as the single run
// counts the values.
func TestAggregateOfALargeDiffEqualsTheSingleRun(t *testing.T) {
	const resources = 120
	fixture := filepath.Join(t.TempDir(), "large.json")
	writeFile(t, fixture, cdkdtest.DiffJSON(24, resources))
	single := newWorkspace(t)
	single.stub(diffInvocation(t, fixture))
	one := single.run(map[string]string{"all": "true"})
	assert.Equal(t, one.code, 0, one.stdout)

	perStack := splitDiff(t, fixture)
	var stacks []plan.Stack
	for name := range perStack {
		stacks = append(stacks, plan.Stack{Name: name, Resources: resources})
	}
	matrix, err := json.Marshal(plan.Split(stacks, 4))
	assert.NilError(t, err)
	w := newWorkspace(t)
	reports := runShards(t, w, string(matrix), perStack)
	agg := w.run(map[string]string{"command": "aggregate", "reports": reports, "matrix": string(matrix)})
	assert.Equal(t, agg.code, 0, agg.stdout)

	oneBody := single.gh.Comments(owner, repo, prNum)[0].Body
	assert.Assert(t, is.Contains(oneBody, "shortened"), "the comment had to be shortened")
	aggComments := w.gh.Comments(owner, repo, prNum)
	assert.Assert(t, is.Len(aggComments, 1))
	assert.Equal(t, strings.ReplaceAll(aggComments[0].Body, w.gh.URL, single.gh.URL), oneBody)
	for _, name := range []string{"digest", "has-changes", "to-create", "to-update", "to-replace", "to-delete", "outputs-changed"} {
		assert.Equal(t, agg.outputs[name], one.outputs[name], name)
	}
}

// A shard whose report file cannot be written fails, with a reason of its
// own: the file is all it produces, and the aggregate would otherwise say
// the shard's job "failed before writing one". The summary is still
// written, and the log says what failed.
func TestShardFailsWhenItsReportCannotBeWritten(t *testing.T) {
	w := newWorkspace(t)
	w.vars["GITHUB_WORKSPACE"] = w.dir
	// .cdkd-action is a file: the report's folder cannot be made (as a
	// full disk, a write failure even root cannot get past).
	writeFile(t, filepath.Join(w.dir, ".cdkd-action"), "not a folder")
	inv := diffInvocation(t, "../../testdata/fixtures/diff-v2.json")
	inv.Args = []string{"diff", "StackA", "--json", "--recursive"}
	w.stub(inv)
	res := w.run(map[string]string{"stacks": "StackA", "publish": "false", "shard": `{"id":"1-of-2","stacks":"StackA","resources":9,"plan":"0123456789ab"}`})
	assert.Equal(t, res.code, 3, res.stdout)
	assert.Equal(t, res.outputs["failure-reason"], "report-not-written")
	assert.Equal(t, res.outputs["report-json"], "")
	assert.Assert(t, is.Contains(res.stdout, "::warning::the report JSON was not posted"))
	assert.Assert(t, is.Contains(res.summary, "cdkd diff"), "the summary is written")

	// Publishing to GitHub, the report file is not the product: a warning.
	w2 := newWorkspace(t)
	w2.vars["GITHUB_WORKSPACE"] = w2.dir
	writeFile(t, filepath.Join(w2.dir, ".cdkd-action"), "not a folder")
	w2.stub(diffInvocation(t, "../../testdata/fixtures/diff-v2.json"))
	res = w2.run(map[string]string{"all": "true"})
	assert.Equal(t, res.code, 0, res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "::warning::write report JSON: "))
}
