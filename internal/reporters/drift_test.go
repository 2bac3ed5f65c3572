package reporters

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Regenerate with: go test ./reporters/... -update

// decodeDrift reads `cdkd drift --json` output (today's or the seeds' shape).
func decodeDrift(t testing.TB, name string) model.Drift {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	assert.NilError(t, err)
	var d model.Drift
	assert.NilError(t, json.Unmarshal(b, &d.Stacks))
	return d
}

// driftReport classifies d as the pipeline does and fills the footer.
func driftReport(d model.Drift, exit int) DriftReport {
	return DriftReport{
		Drift:          d,
		Verdict:        model.ClassifyRun(&d, exit, cdkd.ReadsCurrentState),
		Label:          "prod",
		SHA:            "0123456789abcdef0123456789abcdef01234567",
		RunURL:         "https://github.com/o/r/actions/runs/123",
		CdkdVersion:    "0.284.40",
		FullReportHint: testHint,
	}
}

// decide sets a not-compared entry's cause the way the pipeline decides it.
func decide(t testing.TB, d *model.Drift, id string, cause model.NotComparedCause, basis model.CauseBasis) {
	t.Helper()
	for i := range d.Stacks {
		for j := range d.Stacks[i].NotCompared {
			nc := &d.Stacks[i].NotCompared[j]
			if nc.LogicalID == id {
				nc.Cause, nc.CauseInferred, nc.CauseBasis = cause, basis != model.BasisReported, basis
				return
			}
		}
	}
	t.Fatalf("no not-compared resource %s", id)
}

// hideValues hides every present value, as the pipeline does where NoEcho
// positions are unknown.
func hideValues(d model.Drift) model.Drift {
	b, _ := json.Marshal(d)
	var out model.Drift
	_ = json.Unmarshal(b, &out)
	for i := range out.Stacks {
		for j := range out.Stacks[i].Drifted {
			for k := range out.Stacks[i].Drifted[j].Changes {
				c := &out.Stacks[i].Drifted[j].Changes[k]
				if c.State.Present() && !c.State.IsNull() {
					c.State = model.HiddenValue()
				}
				if c.AWS.Present() && !c.AWS.IsNull() {
					c.AWS = model.HiddenValue()
				}
			}
		}
	}
	return out
}

func noEchoDrift(t testing.TB) model.Drift {
	t.Helper()
	d := decodeDrift(t, "drift_noecho.json")
	d.Stacks[0].Drifted[0].Changes[0].Secret = model.SecretNoEcho
	d.Stacks[0].Drifted[0].Changes[0].HiddenCase = model.HiddenNoEchoParameter
	return d
}

func driftGoldenCases(t *testing.T) map[string]DriftReport {
	refused := decodeDrift(t, "drift_refused.json")
	decide(t, &refused, "XrSecretParam", model.CauseRefused, model.BasisStateAndExit)
	refusedFallback := decodeDrift(t, "drift_refused.json")
	decide(t, &refusedFallback, "XrSecretParam", model.CauseRefused, model.BasisExitCode)
	secure := decodeDrift(t, "drift_ssmsecure.json")
	decide(t, &secure, "SecureTopic", model.CauseUnresolvedToken, model.BasisState)

	failed := driftReport(model.Drift{}, 1)
	failed.Verdict = model.ErrorVerdict(1, "cdkd printed no drift report")
	failed.Error = "cdkd drift failed (exit 1): Error: connect ECONNREFUSED 127.0.0.1:1"
	failed.StderrTail = []string{"Error: connect ECONNREFUSED 127.0.0.1:1"}

	fallback := driftReport(refusedFallback, 2)
	fallback.CauseNote = "The state record could not be read (AWS is not configured), so causes cdkd did not report were inferred from its exit code alone."

	oob := decodeDrift(t, "drift_oob1.json")
	after := decodeDrift(t, "drift_oob1.json")
	after.Stacks[0].Drifted = after.Stacks[0].Drifted[1:2]
	after.Stacks[0].Drifted[0].Changes[0] = model.DriftChange{Path: "QueueName", State: model.StringValue("fixture-queue-v1"), AWS: model.StringValue("fixture-queue-renamed")}
	afterVerdict := model.ClassifyRun(&after, 1, cdkd.ReadsCurrentState)
	clean := decodeDrift(t, "drift_clean.json")
	cleanVerdict := model.ClassifyRun(&clean, 0, cdkd.ReadsCurrentState)

	accepted := driftReport(oob, 1)
	accepted.Resolution = &ResolutionReport{
		Mode:      "accept",
		Resources: []string{"StackA/Bucket83908E77", "StackA/Queue4A7E3555", "StackA/TopicBFC7AF6E"},
		Summary:   []string{"✓ State updated for StackA (us-east-1): accepted drift on 2 resource(s)."},
		Outcomes: []model.ResolvedResource{
			{Stack: "StackA", LogicalID: "Bucket83908E77", Type: "AWS::S3::Bucket", Outcome: model.ResolutionAccepted},
			{Stack: "StackA", LogicalID: "Queue4A7E3555", Type: "AWS::SQS::Queue", Outcome: model.ResolutionAccepted},
			{Stack: "StackA", LogicalID: "TopicBFC7AF6E", Type: "AWS::SNS::Topic", Outcome: model.ResolutionSkipped, Reason: "DisplayName: secret-bearing, its AWS-current value could not be identified"},
		},
		Output: []string{"Plan (--accept): update cdkd state for StackA (us-east-1):", "  ~ Bucket83908E77 (AWS::S3::Bucket)", "    VersioningConfiguration.Status: Enabled -> Suspended"},
		After:  &cleanVerdict,
	}
	revertedStill := driftReport(oob, 1)
	revertedStill.Resolution = &ResolutionReport{
		Mode:      "revert",
		Resources: []string{"StackA/Bucket83908E77", "StackA/Queue4A7E3555", "StackA/TopicBFC7AF6E"},
		Summary:   []string{"Revert summary: 3 reverted"},
		Outcomes: []model.ResolvedResource{
			{Stack: "StackA", LogicalID: "Bucket83908E77", Outcome: model.ResolutionReverted},
			{Stack: "StackA", LogicalID: "Queue4A7E3555", Outcome: model.ResolutionReverted},
			{Stack: "StackA", LogicalID: "TopicBFC7AF6E", Outcome: model.ResolutionReverted},
		},
		Warnings:   []string{"! Queue4A7E3555 (AWS::SQS::Queue): this resource has no observed-capture baseline; the revert LEAVES 1 AWS-authored value untouched: RedrivePolicy"},
		After:      &afterVerdict,
		AfterDrift: after,
	}
	revertPartial := driftReport(oob, 1)
	revertPartial.Resolution = &ResolutionReport{
		Mode:      "revert",
		Resources: []string{"StackA/Bucket83908E77", "StackA/Queue4A7E3555", "StackA/TopicBFC7AF6E"},
		Failed: []ResolutionFailure{
			{Resource: "StackA/Queue4A7E3555", Line: "StackA/Queue4A7E3555 (AWS::SQS::Queue): AWS update failed — AccessDenied"},
			{Line: "something cdkd printed without a resource"},
		},
		Summary: []string{"Revert summary: 2 reverted, 1 failed"},
		Outcomes: []model.ResolvedResource{
			{Stack: "StackA", LogicalID: "Queue4A7E3555", Type: "AWS::SQS::Queue", Outcome: model.ResolutionFailed, Reason: "AWS update failed — AccessDenied"},
			{Stack: "StackA", LogicalID: "Bucket83908E77", Type: "AWS::S3::Bucket", Outcome: model.ResolutionReverted},
			{Stack: "StackA", LogicalID: "TopicBFC7AF6E", Type: "AWS::SNS::Topic", Outcome: model.ResolutionReverted},
		},
		After:      &afterVerdict,
		AfterDrift: after,
	}

	hostileDrift := model.Drift{Stacks: []model.StackDrift{{
		Stack: "Stack" + hostile, Region: "us-east-1" + hostile,
		Drifted: []model.DriftedResource{{
			Resource: model.Resource{LogicalID: "Id" + hostile, Type: "AWS::X::Y" + hostile},
			Changes:  []model.DriftChange{{Path: "P" + hostile, State: model.StringValue(hostile), AWS: model.StringValue("short" + hostile)}},
		}},
		NotCompared:  []model.NotCompared{{Resource: model.Resource{LogicalID: "N" + hostile, Type: "T" + hostile}, Cause: model.NotComparedCause("c" + hostile)}},
		NotSupported: []model.Resource{{LogicalID: "U" + hostile, Type: "AWS::U" + hostile}},
		Skipped:      []model.Resource{{LogicalID: "S" + hostile, Type: "Custom::" + hostile}},
	}}}
	hostileReport := driftReport(hostileDrift, 1)
	hostileReport.Label = hostile
	hostileReport.CauseNote = hostile
	hostileReport.Resolution = &ResolutionReport{Mode: "revert", Failed: []ResolutionFailure{{Resource: "R" + hostile, Line: "R" + hostile}}, Summary: []string{hostile},
		Outcomes: []model.ResolvedResource{{Stack: "S" + hostile, LogicalID: "R" + hostile, Type: "T" + hostile, Outcome: model.ResolutionFailed, Reason: hostile}},
		Warnings: []string{hostile}, PlanText: strings.Split(hostile, "\n"), Output: []string{hostile}}
	hostileError := driftReport(model.Drift{}, 1)
	hostileError.Verdict = model.ErrorVerdict(1, hostile)
	hostileError.Error = hostile
	hostileError.StderrTail = strings.Split(hostile, "\n")

	hidden := driftReport(oob, 1)
	hidden.Drift = hideValues(hidden.Drift)
	hidden.Notes = []string{"Values hidden: no cloud assembly, so NoEcho positions are unknown; pass the synthesized assembly as app to see them."}
	hidden.HiddenStacks = []string{"StackA", "StackB"}

	return map[string]DriftReport{
		"hidden":           hidden,
		"no-stack":         driftReport(model.Drift{}, 0),
		"clean":            driftReport(clean, 0),
		"drifted":          driftReport(oob, 1),
		"refused":          driftReport(refused, 2),
		"refused-no-state": fallback,
		"ssmsecure":        driftReport(secure, 0),
		"readfailed":       driftReport(decodeDrift(t, "drift_readfailed.json"), 2),
		"partial":          driftReport(decodeDrift(t, "drift_partial.json"), 1),
		"unsupported":      driftReport(decodeDrift(t, "drift_unsupported.json"), 0),
		"noecho":           driftReport(noEchoDrift(t), 1),
		"error":            failed,
		"accept":           accepted,
		"revert-still":     revertedStill,
		"revert-partial":   revertPartial,
		"injection":        hostileReport,
		"injection-error":  hostileError,
		"bare":             {Drift: oob, Verdict: model.ClassifyRun(&oob, 1, cdkd.ReadsCurrentState)},
	}
}

func TestDriftMarkdownGolden(t *testing.T) {
	for name, r := range driftGoldenCases(t) {
		t.Run(name, func(t *testing.T) {
			got := DriftMarkdown(r, Unlimited)
			golden.Assert(t, got, "drift_"+name+".golden")
			assertSafe(t, got)
			assert.Assert(t, !strings.Contains(got, "✂️"), "an unlimited report is never shortened")
			assert.Equal(t, DriftMarkdown(r, CheckRunBudget), got)
		})
	}
}

func TestDriftIssueMarkdownGolden(t *testing.T) {
	cases := driftGoldenCases(t)
	for _, name := range []string{"clean", "drifted", "refused", "error", "no-stack"} {
		t.Run(name, func(t *testing.T) {
			got := DriftIssueMarkdown(cases[name], CommentBudget)
			golden.Assert(t, got, "drift_issue_"+name+".golden")
			assertSafe(t, got)
			assert.Assert(t, !strings.Contains(got, "actions/runs/123"), "the issue body holds nothing that changes every run")
			assert.Assert(t, !strings.Contains(got, "0123456"), "the issue body holds nothing that changes every commit")
		})
	}
}

// The headline alone tells drift, "could not check" and clean apart, and
// never calls an error or an incomplete check clean or drift.
func TestDriftHeadlines(t *testing.T) {
	cases := driftGoldenCases(t)
	tests := []struct {
		name, want, title string
		not               []string
	}{
		{name: "clean", want: "✅ **No drift:** every compared resource matches", title: "No drift", not: []string{"Drift detected", "Could not check"}},
		{name: "drifted", want: "🔴 **Drift detected:** 3 resources drifted in 1 of 2 stacks.", title: "3 resources drifted"},
		{name: "refused", want: "⚠️ **Could not check everything:**", title: "Could not check everything: 1 resource not checked", not: []string{"No drift", "Drift detected"}},
		{name: "ssmsecure", want: "✅ **No drift:**", title: "No drift", not: []string{"Could not check"}},
		{name: "readfailed", want: "⚠️ **Could not check everything:** nothing drifted among the resources that were compared, but 2 resources could not be checked", title: "Could not check everything: 2 resources not checked"},
		{name: "partial", want: "🔴 **Drift detected:** 1 resource drifted in 1 of 1 stack. 1 resource was not fully compared.", title: "1 resource drifted"},
		{name: "unsupported", want: "⚠️ **Could not check everything:**", title: "Could not check everything: 1 resource not checked"},
		{name: "error", want: "❌ **Drift could not be checked:**", title: "cdkd drift failed", not: []string{"No drift", "Drift detected", "✅"}},
		{name: "accept", want: "✅ **Accepted** (2)\n- `StackA/Bucket83908E77` · `AWS::S3::Bucket`\n- `StackA/Queue4A7E3555` · `AWS::SQS::Queue`", title: "3 resources drifted · accepted",
			not: []string{"Accepted 3", "Accepted** (3)"}},
		{name: "revert-still", want: "⚠️ **cdkd said reverted, still drifted** (1)", title: "3 resources drifted · 1 resource still drifted after revert"},
		{name: "revert-partial", want: "❌ **Failed** (1): cdkd's error is shown; inspect it and retry once its cause is resolved.\n- `StackA/Queue4A7E3555` · `AWS::SQS::Queue`: AWS update failed — AccessDenied", title: "3 resources drifted · revert failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DriftMarkdown(cases[tc.name], Unlimited)
			assert.Assert(t, strings.Contains(got, tc.want), "want %q in:\n%s", tc.want, got)
			assert.Equal(t, DriftTitle(cases[tc.name]), tc.title)
			for _, n := range tc.not {
				assert.Assert(t, !strings.Contains(got, n), "unexpected %q in:\n%s", n, got)
			}
		})
	}
}

// Nothing compared because cdkd never checks these by design is clean (the
// seed: "without any uncertainty claim"), but never a ✓; no stack at all is
// incomplete, and says why.
func TestDriftMarkdownNothingComparedNeverGetsACheckMark(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "OnlyUnsupported", Region: "us-east-1",
		NotSupported: []model.Resource{{LogicalID: "Schema", Type: "AWS::AppSync::GraphQLSchema"}}}}}
	r := driftReport(d, 0)
	assert.Equal(t, r.Verdict.Status, model.DriftClean)
	got := DriftMarkdown(r, Unlimited)
	assert.Assert(t, !strings.Contains(got, "✅"), "got:\n%s", got)
	assert.Assert(t, strings.Contains(got, "⚠️ **No drift detected, but nothing was compared:** cdkd never drift-checks these resources by design"), got)
	assert.Assert(t, !strings.Contains(got, "among the resources that were compared"), got)
	assert.Assert(t, strings.Contains(got, "0 of 1 resource checked (1 unsupported)"))
	assert.Assert(t, strings.Contains(got, "⚠️ <b>OnlyUnsupported</b> · us-east-1 · no drift detected, but NOTHING was compared"))
	assert.Equal(t, DriftTitle(r), "No drift detected, but nothing was compared")
	assert.Assert(t, strings.Contains(DriftIssueMarkdown(r, CommentBudget), "The latest check compared nothing"))

	none := driftReport(model.Drift{}, 0)
	got = DriftMarkdown(none, Unlimited)
	assert.Assert(t, !strings.Contains(got, "✅"), "got:\n%s", got)
	assert.Assert(t, strings.Contains(got, "⚠️ **Nothing checked:** cdkd checked no stack — check stacks/all, state-bucket, state-prefix and stack-region."), got)
	assert.Equal(t, DriftTitle(none), "Nothing checked: cdkd checked no stack")
}

// Notes show under the headline at every level; a stack whose values were
// all hidden says so instead of the NoEcho custom-resource remark.
func TestDriftMarkdownNotesAndHiddenValues(t *testing.T) {
	cases := driftGoldenCases(t)
	r := cases["hidden"]
	levels, render, _ := driftRenderer(r, CommentBudget, false)
	for level := range levels {
		w := NewWriter(Unlimited)
		render(w, level)
		assert.Assert(t, strings.Contains(w.String(), "> ℹ️ Values hidden"), "level %d", level)
	}
	got := DriftMarkdown(r, Unlimited)
	assert.Assert(t, strings.Contains(got, "Every value in this stack is hidden"), got)
	assert.Assert(t, !strings.Contains(got, "by design"), got)
	assert.Assert(t, strings.Contains(got, "`DisplayName`: `***` → `***` · 🔒 hidden"), got)
}

func TestDriftMarkdownNeverShowsSecretPositions(t *testing.T) {
	d := noEchoDrift(t)
	d.Stacks[0].Drifted[0].Changes[0].State = model.StringValue("hunter2-noecho-v1")
	d.Stacks[0].Drifted[0].Changes[0].AWS = model.StringValue("hunter2-noecho-v2")
	for _, b := range []Budget{Unlimited, CommentBudget, {MaxChars: 1500}, {MaxBytes: 700}} {
		got := DriftMarkdown(driftReport(d, 1), b)
		assert.Assert(t, !strings.Contains(got, "hunter2-noecho"), "budget %+v shows a secret", b)
		if b == Unlimited {
			assert.Assert(t, strings.Contains(got, "`Value`: `***` → `***` · 🔒 NoEcho"), got)
			assert.Assert(t, strings.Contains(got, "**Real drift at a NoEcho parameter's position** (values hidden): `NoEchoParam2FCCC8BD.Value`"), got)
			assert.Assert(t, !strings.Contains(got, "drifts on every run by design"), "a NoEcho parameter's drift is real drift:\n%s", got)
		}
	}
}

func TestDriftMarkdownLevels(t *testing.T) {
	r := driftReport(decodeDrift(t, "drift_oob1.json"), 1)
	for _, name := range []string{"drift_partial.json", "drift_readfailed.json", "drift_unsupported.json"} {
		r.Drift.Stacks = append(r.Drift.Stacks, decodeDrift(t, name).Stacks...)
	}
	noEcho := noEchoDrift(t).Stacks[0]
	noEcho.Stack = "StackN"
	r.Drift.Stacks = append(r.Drift.Stacks, noEcho)
	r.Verdict = model.ClassifyRun(&r.Drift, 1, cdkd.ReadsCurrentState)
	levels, render, note := driftRenderer(r, CommentBudget, false)
	assert.Equal(t, levels, driftLevels)
	assertLevels(t, levels, render, note, "drift_level-%d.golden", driftFull, driftCollapsed)
}

// largeDrift is stacks*perStack drifted resources with long values, and as
// many not compared.
func largeDrift(stacks, perStack int) model.Drift {
	var d model.Drift
	for s := range stacks {
		sd := model.StackDrift{Stack: fmt.Sprintf("Stack%03d", s), Region: "us-east-1"}
		for r := range perStack {
			id := fmt.Sprintf("Resource%05d", r)
			policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sqs:SendMessage"],"Resource":"arn:aws:sqs:us-east-1:000000000000:queue-%d"}]}`, r)
			sd.Drifted = append(sd.Drifted, model.DriftedResource{
				Resource: model.Resource{LogicalID: id, Type: "AWS::IAM::Policy"},
				Changes: []model.DriftChange{
					{Path: "PolicyDocument", State: model.JSONValue(policy), AWS: model.JSONValue(strings.Replace(policy, "Allow", "Deny", 1))},
					{Path: "PolicyName", State: model.StringValue(id + "-old"), AWS: model.StringValue(id + "-new")},
				},
			})
			sd.NotCompared = append(sd.NotCompared, model.NotCompared{Resource: model.Resource{LogicalID: id + "N", Type: "AWS::SNS::Topic"}, Cause: model.CauseRefused})
			sd.NotSupported = append(sd.NotSupported, model.Resource{LogicalID: id + "U", Type: fmt.Sprintf("AWS::Svc%d::Thing", r)})
		}
		d.Stacks = append(d.Stacks, sd)
	}
	return d
}

func TestDriftMarkdownBudgets(t *testing.T) {
	large := driftReport(largeDrift(30, 200), 1)
	manyStacks := driftReport(largeDrift(20000, 1), 1)
	failure := driftReport(model.Drift{}, 1)
	failure.Verdict = model.ErrorVerdict(1, "x")
	failure.Error = "boom"
	for i := range 200 {
		failure.StderrTail = append(failure.StderrTail, fmt.Sprintf("line %d %s", i, strings.Repeat("ä", 500)))
	}
	tests := []struct {
		name     string
		report   DriftReport
		budget   Budget
		headline string
	}{
		{name: "large in a comment", report: large, budget: CommentBudget, headline: "🔴 **Drift detected:** 6000 resources drifted in 30 of 30 stacks."},
		{name: "large in a check run", report: large, budget: CheckRunBudget, headline: "🔴 **Drift detected:**"},
		{name: "large in a job summary", report: large, budget: SummaryBudget, headline: "🔴 **Drift detected:**"},
		{name: "many stacks in a check run", report: manyStacks, budget: CheckRunBudget, headline: "🔴 **Drift detected:**"},
		{name: "failure in a check run", report: failure, budget: CheckRunBudget, headline: "❌ **Drift could not be checked:** boom"},
		{name: "failure, tiny", report: failure, budget: Budget{MaxBytes: 300}},
		{name: "tiny chars", report: large, budget: Budget{MaxChars: 120}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DriftMarkdown(tc.report, tc.budget)
			assert.Assert(t, tc.budget.Fits(got), "%d bytes, %d chars", len(got), utf8.RuneCountInString(got))
			assert.Assert(t, utf8.ValidString(got))
			assert.Assert(t, strings.Contains(got, "✂️ **Report shortened**"))
			if tc.headline != "" {
				assert.Assert(t, strings.Contains(got, tc.headline), "no headline in:\n%.2000s", got)
			}
			assertBalanced(t, got)
		})
	}
	t.Run("summary keeps more than a check run", func(t *testing.T) {
		summary, check := DriftMarkdown(large, SummaryBudget), DriftMarkdown(large, CheckRunBudget)
		assert.Assert(t, len(summary) > len(check))
		assert.Assert(t, strings.Contains(summary, "`Resource00199`"))
	})
}

func TestDriftMarkdownDoesNotModifyTheReport(t *testing.T) {
	d := decodeDrift(t, "drift_unsupported.json")
	d.Stacks[0], d.Stacks[1] = d.Stacks[1], d.Stacks[0]
	before, err := json.Marshal(d)
	assert.NilError(t, err)
	got := DriftMarkdown(driftReport(d, 0), Unlimited)
	after, err := json.Marshal(d)
	assert.NilError(t, err)
	assert.Equal(t, string(after), string(before))
	assert.Equal(t, got, DriftMarkdown(driftReport(decodeDrift(t, "drift_unsupported.json"), 0), Unlimited), "stack order does not matter")
}

// "By design" is said of one case only; each other case says what it is.
func TestDriftMarkdownHiddenCases(t *testing.T) {
	for _, tc := range []struct {
		c        model.HiddenCase
		want     string
		byDesign bool
	}{
		{model.HiddenByDesign, "🔒 **Drifts on every run by design:** `NoEchoParam2FCCC8BD.Value`", true},
		{model.HiddenNoEchoParameter, "`cdkd drift --revert` puts the parameter's value back; a re-deploy does not", false},
		{model.HiddenSecretReference, "most often the secret was rotated", false},
		// testdata/cdkd-kumo-rotation: the drift survives a re-deploy, and
		// --revert does not apply a create-only name.
		{model.HiddenSecretReference, "A re-deploy does not push it", false},
		{model.HiddenSecretReference, "for a create-only one (a name) cdkd 0.284.40 reports it reverted and changes nothing", false},
		{model.HiddenUndecided, "Hidden drift, cause undecided", false},
	} {
		d := noEchoDrift(t)
		d.Stacks[0].Drifted[0].Changes[0].HiddenCase = tc.c
		got := DriftMarkdown(driftReport(d, 1), Unlimited)
		assert.Assert(t, strings.Contains(got, tc.want), "%s:\n%s", tc.c, got)
		assert.Assert(t, !strings.Contains(got, "or a re-deploy"), "a re-deploy does not put a value back: %s", got)
		assert.Equal(t, strings.Contains(got, "Drifts on every run by design"), tc.byDesign, "%s", tc.c)
	}
}

// Which unsupported resources are possibly deleted is the run's verdict (it
// depends on the cdkd that ran, which reporters do not know): the report
// follows the verdict it is given, also for a type no cdkd list names.
func TestDriftPossiblyDeletedFollowsTheVerdict(t *testing.T) {
	d := model.Drift{Stacks: []model.StackDrift{{Stack: "A", Region: "us-east-1",
		Clean:        []model.Resource{{LogicalID: "Q", Type: "AWS::SQS::Queue"}},
		NotSupported: []model.Resource{{LogicalID: "Fn", Type: "AWS::Lambda::Function"}, {LogicalID: "Odd", Type: "AWS::Foo::Bar"}}}}}
	readsFoo := func(typ string) bool { return typ == "AWS::Foo::Bar" }
	md := DriftMarkdown(DriftReport{Drift: d, Verdict: model.ClassifyRun(&d, 2, readsFoo)}, CommentBudget)
	deleted, unknown, ok := strings.Cut(md, "❔ **Drift unknown:**")
	assert.Assert(t, ok, md)
	assert.Assert(t, is.Contains(deleted, "Not checked (possibly deleted) (1)"))
	assert.Assert(t, is.Contains(deleted, "`Odd`"))
	assert.Assert(t, is.Contains(unknown, "`AWS::Lambda::Function`"))
	assert.Assert(t, !strings.Contains(unknown, "AWS::Foo::Bar"), "a possibly deleted resource is not also drift unknown")
}
