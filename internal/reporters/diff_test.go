package reporters

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Regenerate with: go test ./reporters/... -update

const (
	testDigest = "v1:3f2a9c0d41b7e8f5a6c2d9e0b1f4a7c3d8e2f6a9b0c1d4e7f2a5b8c9d0e3f6a1"
	testHint   = "the job summary of [run 123](https://github.com/o/r/actions/runs/123) and the report JSON artifact"
)

// decodeDiff reads `cdkd diff --json` output the way the pipeline does.
func decodeDiff(t testing.TB, name string) model.Diff {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	assert.NilError(t, err)
	var d model.Diff
	assert.NilError(t, json.Unmarshal(b, &d.Stacks))
	return d
}

// markSecret marks a property as the pipeline does for a NoEcho position.
func markSecret(t testing.TB, d *model.Diff, logicalID, path string, kind model.SecretKind) {
	t.Helper()
	for i := range d.Stacks {
		for k := range d.Stacks[i].Changes {
			ch := &d.Stacks[i].Changes[k]
			for p := range ch.PropertyChanges {
				if ch.LogicalID == logicalID && ch.PropertyChanges[p].Path == path {
					ch.PropertyChanges[p].Secret = kind
					return
				}
			}
		}
	}
	t.Fatalf("no property %s of %s", path, logicalID)
}

func sampleDiff(t testing.TB) model.Diff {
	t.Helper()
	d := decodeDiff(t, "diff-v2.json")
	markSecret(t, &d, "NoEchoParam2FCCC8BD", "Value", model.SecretNoEcho)
	return d
}

func report(d model.Diff) DiffReport {
	return DiffReport{
		Diff:           d,
		Label:          "prod",
		HeadSHA:        "0123456789abcdef0123456789abcdef01234567",
		RunURL:         "https://github.com/o/r/actions/runs/123",
		CdkdVersion:    "0.284.40",
		Digest:         testDigest,
		FullReportHint: testHint,
	}
}

func boolPtr(b bool) *bool { return &b }

// featuresDiff exercises every kind of row the report has.
func featuresDiff() model.Diff {
	policy := `{"Version":"2012-10-17","Statement":[` + strings.Repeat(`{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bucket/*"},`, 3) +
		`{"Effect":"Deny","Action":"s3:DeleteObject","Resource":"*"}]}`
	return model.Diff{Stacks: []model.StackDiff{{
		Stack: "Features", Region: "eu-west-1",
		Changes: []model.ResourceChange{
			{LogicalID: "Role1", ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Role",
				PropertyChanges: []model.PropertyChange{
					{Path: "Policies.0.PolicyDocument", Old: model.JSONValue(policy), New: model.JSONValue(strings.Replace(policy, "Deny", "Allow", 1))},
					{Path: "Description", Old: model.JSONValue("null"), New: model.StringValue("")},
					{Path: "MaxSessionDuration", Old: model.StringValue("3600"), New: model.JSONValue("3600")},
					{Path: "Tags", Old: model.JSONValue(`[{"Key":"a","Value":"b"}]`)},
				},
				AttributeChanges: []model.AttributeChange{
					{Attribute: "DeletionPolicy", Old: model.StringValue("Retain"), New: model.StringValue("Delete")},
					{Attribute: "UpdateReplacePolicy", New: model.StringValue("Retain")},
				},
				CCAPI: []string{"Policies", "Tags"},
			},
			{LogicalID: "Fn1", ChangeType: model.ChangeUpdate, ResourceType: "AWS::Lambda::Function",
				PropertyChanges: []model.PropertyChange{
					{Path: "Code.ZipFile", Old: model.StringValue("exports.handler = async () => {\n  return 1;\n};\n" + strings.Repeat("// padding\n", 8)),
						New: model.StringValue("exports.handler = async () => {\n  return 2;\n};\n")},
					{Path: "FunctionName", Old: model.StringValue("fn-a"), New: model.StringValue("fn-b"), RequiresReplacement: true, ReplacementPropagated: boolPtr(true)},
					{Path: "Environment.Variables.API_KEY", Old: model.StringValue("old-plaintext-key"), New: model.StringValue("new-plaintext-key"), Secret: model.SecretReference},
				},
			},
			{LogicalID: "Bucket1", ChangeType: model.ChangeDelete, ResourceType: "AWS::S3::Bucket"},
			{LogicalID: "Big1", ChangeType: model.ChangeCreate, ResourceType: "Custom::Big",
				PropertyChanges: []model.PropertyChange{{Path: "Blob", New: model.StringValue(strings.Repeat("0123456789", 400))}}},
		},
		OutputChanges: []model.OutputChange{
			{Name: "ApiUrl", ChangeType: model.OutputModify, Old: model.StringValue("https://a.example.com/"), New: model.StringValue("https://b.example.com/")},
			{Name: "Features:ApiUrl", ChangeType: model.OutputModify, Old: model.StringValue("https://a.example.com/"), New: model.StringValue("https://b.example.com/"), Export: true},
			{Name: "DbPassword", ChangeType: model.OutputModify, Old: model.StringValue("old-secret-output"), New: model.StringValue("new-secret-output"), Secret: model.SecretNoEcho},
			{Name: "Gone", ChangeType: model.OutputRemove, Old: model.StringValue("was-here")},
			{Name: "Hidden", ChangeType: model.OutputModify, OldValueRedacted: true, New: model.StringValue("now")},
			{Name: "Policy", ChangeType: model.OutputAdd, New: model.JSONValue(policy)},
		},
	}}}
}

func nestedDiff() model.Diff {
	update := func(id string) model.ResourceChange {
		return model.ResourceChange{LogicalID: id, ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
			PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: model.StringValue("a"), New: model.StringValue("b")}}}
	}
	return model.Diff{Stacks: []model.StackDiff{
		{Stack: "Quiet", Region: "us-east-1"},
		{Stack: "Parent", Region: "us-east-1", Children: []model.StackDiff{
			{Stack: "ChildB", Region: "us-east-1", Changes: []model.ResourceChange{update("TopicB")}, Children: []model.StackDiff{
				{Stack: "Grandchild", Region: "us-east-1", Changes: []model.ResourceChange{{LogicalID: "Gone", ChangeType: model.ChangeDelete, ResourceType: "AWS::SQS::Queue"}}},
			}},
			{Stack: "ChildA", Region: "us-east-1"},
		}},
	}}
}

func noEchoNoteDiff() model.Diff {
	return model.Diff{Stacks: []model.StackDiff{
		{Stack: "StackA", Region: "us-east-1", NoEchoReaders: []string{"NoEchoParam2FCCC8BD", "AnotherReader"}},
		{Stack: "StackB", Region: "us-east-1", NoEchoReaders: []string{"OnlyReader"}},
	}}
}

// hostile is text an attacker could place in a template, a resource or an
// error message, hoping to break out of the report.
const hostile = "x</details><img src=x onerror=alert(1)>@octocat #123 ```fence``` `tick` \u202egnp.exe\u2066 ![i](https://e/x.png) [l](javascript:x) <!-- c -->\n# heading\n\n</details>"

func injectionDiff() model.Diff {
	return model.Diff{Stacks: []model.StackDiff{{
		Stack: "Stack" + hostile, Region: "us-east-1" + hostile,
		Changes: []model.ResourceChange{
			{LogicalID: "Id" + hostile, ChangeType: model.ChangeUpdate, ResourceType: "AWS::X::Y" + hostile,
				PropertyChanges: []model.PropertyChange{
					{Path: "Path" + hostile, Old: model.StringValue("short`"), New: model.StringValue(hostile), RequiresReplacement: true},
					{Path: "Long", Old: model.StringValue(strings.Repeat(hostile, 3)), New: model.JSONValue(`{"k":` + strconv.Quote(hostile) + `,"pad":"` + strings.Repeat("p", 80) + `"}`)},
				},
				CCAPI: []string{hostile}},
			{LogicalID: "Gone" + hostile, ChangeType: model.ChangeDelete, ResourceType: "AWS::X::Y"},
		},
		OutputChanges: []model.OutputChange{{Name: "Out" + hostile, ChangeType: model.OutputAdd, New: model.StringValue(hostile)}},
		NoEchoReaders: []string{"Reader" + hostile},
	}}}
}

func TestDiffMarkdownGolden(t *testing.T) {
	failed := report(model.Diff{})
	failed.Error = "cdkd exited with code 1: Stack StackA is locked by another job"
	failed.StderrTail = []string{
		"\x1b[33mWarning:\x1b[0m emulator does not support DescribeType",
		"Error: Stack StackA is locked (holder: run 41, since 2024-05-01T10:00:00Z). Run cdkd force-unlock StackA",
	}
	hostileFailure := report(model.Diff{})
	hostileFailure.Label = hostile
	hostileFailure.Error = hostile
	hostileFailure.StderrTail = strings.Split(hostile, "\n")

	hostileReport := report(injectionDiff())
	hostileReport.Label = hostile

	tests := []struct {
		name   string
		report DiffReport
		// longValues: a value is longer than BlockMax, which a comment cuts
		// (its own golden) and the unlimited report shows whole.
		longValues bool
	}{
		{name: "sample-v2", report: report(sampleDiff(t))},
		{name: "no-changes", report: report(decodeDiff(t, "diff-v1-nochange.json"))},
		{name: "no-stack", report: report(model.Diff{Stacks: []model.StackDiff{}})},
		{name: "nested", report: report(nestedDiff())},
		{name: "noecho-note", report: report(noEchoNoteDiff())},
		{name: "features", report: report(featuresDiff()), longValues: true},
		{name: "error", report: failed},
		{name: "injection", report: hostileReport},
		{name: "injection-error", report: hostileFailure},
		{name: "bare", report: DiffReport{Diff: sampleDiff(t)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DiffMarkdown(tc.report, Unlimited)
			golden.Assert(t, got, "diff-"+tc.name+".golden")
			assertSafe(t, got)
			assert.Assert(t, !strings.Contains(got, "✂️"), "an unlimited report is never shortened")
			assert.Assert(t, !strings.Contains(got, "more character"), "an unlimited report cuts no value")
			// Within a comment's budget, these render exactly the same but
			// for values longer than BlockMax.
			comment := DiffMarkdown(tc.report, CommentBudget)
			if !tc.longValues {
				assert.Equal(t, comment, got)
				return
			}
			golden.Assert(t, comment, "diff-"+tc.name+"-comment.golden")
			assertSafe(t, comment)
			assert.Assert(t, !strings.Contains(comment, "✂️"))
			// The job summary, where the full report is, shows them whole.
			assert.Equal(t, DiffMarkdown(tc.report, SummaryBudget), got)
		})
	}
}

func TestDiffMarkdownNeverShowsSecretPositions(t *testing.T) {
	d := featuresDiff()
	d.Stacks = append(d.Stacks, sampleDiff(t).Stacks...)
	// A long JSON value at a secret position is hidden, never diffed.
	long := func(pw string) model.Value {
		return model.JSONValue(`{"User":"admin","Password":"` + pw + `","Pad":"` + strings.Repeat("p", 100) + `"}`)
	}
	d.Stacks[0].Changes[0].PropertyChanges = append(d.Stacks[0].Changes[0].PropertyChanges, model.PropertyChange{
		Path: "Secret.Json", Old: long("hunter2-noecho-v1"), New: long("hunter2-noecho-v2"), Secret: model.SecretNoEcho})
	for _, b := range []Budget{Unlimited, CommentBudget, {MaxChars: 1500}, {MaxBytes: 700}} {
		got := DiffMarkdown(report(d), b)
		for _, secret := range []string{"hunter2-noecho", "plaintext-key", "secret-output"} {
			assert.Assert(t, !strings.Contains(got, secret), "budget %+v shows %s", b, secret)
		}
		if b == Unlimited {
			assert.Assert(t, strings.Contains(got, "- `Secret.Json`: `***` → `***` · 🔒 NoEcho\n"), got)
		}
	}
}

func TestDiffMarkdownNoEchoNoteIsNotAChange(t *testing.T) {
	got := DiffMarkdown(report(noEchoNoteDiff()), Unlimited)
	assert.Assert(t, strings.Contains(got, "✅ **No changes.**"))
	assert.Assert(t, strings.Contains(got, "2 unchanged resources read a NoEcho parameter; cdkd cannot tell whether its value changed: `AnotherReader`, `NoEchoParam2FCCC8BD`"))
	assert.Assert(t, strings.Contains(got, "1 unchanged resource reads a NoEcho parameter"))
	assert.Assert(t, !strings.Contains(got, "Destructive"))
}

func TestDiffMarkdownLevels(t *testing.T) {
	r := report(sampleDiff(t))
	r.Diff.Stacks = append(r.Diff.Stacks, featuresDiff().Stacks...)
	r.Diff.Stacks = append(r.Diff.Stacks, nestedDiff().Stacks...)
	levels, render, note := diffRenderer(r, CommentBudget)
	assert.Equal(t, levels, diffLevels)
	assertLevels(t, levels, render, note, "diff-level-%d.golden", levelFull, levelCollapsed)
}

// assertLevels checks each degradation level of a renderer against its
// golden: safe Markdown, the shortened note from the first degraded level
// on, and each level after collapsing strictly shorter than the one before.
func assertLevels(t *testing.T, levels int, render func(*Writer, int), note, goldenName string, full, collapsed int) {
	t.Helper()
	var previous int
	for level := range levels {
		t.Run(strconv.Itoa(level), func(t *testing.T) {
			w := NewWriter(Unlimited)
			render(w, level)
			got := w.String()
			golden.Assert(t, got, fmt.Sprintf(goldenName, level))
			assertSafe(t, got)
			assert.Equal(t, strings.Contains(got, note), level > full)
			if level > collapsed {
				assert.Assert(t, len(got) < previous, "level %d is not shorter than the one before", level)
			}
			previous = len(got)
		})
	}
}

func TestDiffMarkdownErrorLevels(t *testing.T) {
	r := report(model.Diff{})
	r.Error = "boom"
	for i := range 200 {
		r.StderrTail = append(r.StderrTail, fmt.Sprintf("line %d %s", i, strings.Repeat("ä", 500)))
	}
	for _, b := range []Budget{CommentBudget, CheckRunBudget, {MaxBytes: 5000}, {MaxChars: 900}, {MaxBytes: 300}} {
		got := DiffMarkdown(r, b)
		assert.Assert(t, b.Fits(got), "%+v: %d bytes, %d chars", b, len(got), utf8.RuneCountInString(got))
		assert.Assert(t, strings.Contains(got, "✂️ **Report shortened**"), "%+v", b)
		if b.Fits(strings.Repeat("x", 1000)) {
			assert.Assert(t, strings.Contains(got, "❌ **cdkd diff failed:** boom"), "%+v", b)
		}
	}
}

func TestDiffMarkdownSortsACopy(t *testing.T) {
	d := sampleDiff(t)
	before, err := json.Marshal(d)
	assert.NilError(t, err)
	got := DiffMarkdown(report(d), Unlimited)
	after, err := json.Marshal(d)
	assert.NilError(t, err)
	assert.Equal(t, string(after), string(before), "the caller's diff was modified")

	// Any order in, the same report out.
	reversed := sampleDiff(t)
	for i, j := 0, len(reversed.Stacks)-1; i < j; i, j = i+1, j-1 {
		reversed.Stacks[i], reversed.Stacks[j] = reversed.Stacks[j], reversed.Stacks[i]
	}
	for i := range reversed.Stacks {
		c := reversed.Stacks[i].Changes
		for a, b := 0, len(c)-1; a < b; a, b = a+1, b-1 {
			c[a], c[b] = c[b], c[a]
		}
	}
	assert.Equal(t, DiffMarkdown(report(reversed), Unlimited), got)
}

// largeDiff is a deterministic diff of stacks*perStack resources, each
// update carrying a policy document too long to show inline.
func largeDiff(stacks, perStack int) model.Diff {
	var d model.Diff
	for s := range stacks {
		sd := model.StackDiff{Stack: fmt.Sprintf("Stack%03d", s), Region: "us-east-1"}
		for r := range perStack {
			id := fmt.Sprintf("Resource%05d", r)
			switch r % 4 {
			case 0:
				sd.Changes = append(sd.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeCreate, ResourceType: "AWS::SQS::Queue"})
			case 1:
				policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["sqs:SendMessage","sqs:ReceiveMessage"],"Resource":"arn:aws:sqs:us-east-1:000000000000:queue-%d"}]}`, r)
				sd.Changes = append(sd.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Policy",
					PropertyChanges: []model.PropertyChange{
						{Path: "PolicyDocument", Old: model.JSONValue(policy), New: model.JSONValue(strings.Replace(policy, "Allow", "Deny", 1))},
						{Path: "PolicyName", Old: model.StringValue(id + "-old"), New: model.StringValue(id + "-new")},
					}})
			case 2:
				sd.Changes = append(sd.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeUpdate, ResourceType: "AWS::SQS::Queue",
					PropertyChanges: []model.PropertyChange{{Path: "QueueName", Old: model.StringValue(id + "-a"), New: model.StringValue(id + "-b"), RequiresReplacement: true}}})
			case 3:
				sd.Changes = append(sd.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"})
			}
		}
		sd.OutputChanges = []model.OutputChange{{Name: "Arn", ChangeType: model.OutputModify, Old: model.StringValue("arn:a"), New: model.StringValue("arn:b")}}
		d.Stacks = append(d.Stacks, sd)
	}
	return d
}

func TestDiffMarkdownBudgets(t *testing.T) {
	large := report(largeDiff(50, 200))
	manyStacks := report(largeDiff(20000, 1))
	absurd := report(largeDiff(3, 3))
	absurd.Label = strings.Repeat("é", 1<<20)
	absurd.Diff.Stacks[0].Stack = strings.Repeat("s", 1<<20)
	absurd.Diff.Stacks[1].Changes[0].LogicalID = strings.Repeat("`", 1<<20)
	absurdHint := large
	absurdHint.FullReportHint = strings.Repeat("h", 1<<17)

	tests := []struct {
		name        string
		report      DiffReport
		budget      Budget
		wantNote    bool // the shortened note, the headline and the hint show
		wantSection bool // some per-stack detail survives
	}{
		{name: "large in a comment", report: large, budget: CommentBudget, wantNote: true, wantSection: true},
		{name: "large in a check run", report: large, budget: CheckRunBudget, wantNote: true, wantSection: true},
		{name: "large in a job summary", report: large, budget: SummaryBudget, wantNote: true, wantSection: true},
		{name: "many stacks in a comment", report: manyStacks, budget: CommentBudget, wantNote: true},
		{name: "absurd names in a comment", report: absurd, budget: CommentBudget},
		{name: "absurd names in a check run", report: absurd, budget: CheckRunBudget},
		{name: "absurd hint in a comment", report: absurdHint, budget: CommentBudget},
		{name: "tiny bytes", report: large, budget: Budget{MaxBytes: 200, Channel: "the test"}},
		{name: "tiny chars", report: large, budget: Budget{MaxChars: 120}},
		{name: "one byte", report: large, budget: Budget{MaxBytes: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DiffMarkdown(tc.report, tc.budget)
			assert.Assert(t, tc.budget.Fits(got), "%d bytes, %d chars", len(got), utf8.RuneCountInString(got))
			assert.Assert(t, utf8.ValidString(got))
			if tc.budget.MaxBytes > 0 {
				assert.Assert(t, len(got) <= tc.budget.MaxBytes)
			}
			if tc.budget.MaxChars > 0 {
				assert.Assert(t, utf8.RuneCountInString(got) <= tc.budget.MaxChars)
			}
			if tc.wantNote {
				assert.Assert(t, strings.Contains(got, "✂️ **Report shortened** to fit "+tc.budget.Channel+"'s limit; the full report is in "+testHint+"."), "no shortened note")
				assert.Assert(t, strings.Contains(got, "**Plan:** "), "no headline")
			}
			if tc.wantSection {
				assert.Assert(t, strings.Contains(got, "`Stack000`"), "nothing per stack")
			}
			if strings.Contains(got, "✂️") {
				assertBalanced(t, got)
			}
		})
	}

	t.Run("large unlimited", func(t *testing.T) {
		got := DiffMarkdown(large, Unlimited)
		assert.Assert(t, !strings.Contains(got, "✂️"))
		assert.Assert(t, strings.Contains(got, "`Resource00199`"))
		assert.Assert(t, strings.Contains(got, "**Plan:** 2500 to create, 2500 to update, 2500 to replace, 2500 to delete · outputs: 50 to change"))
	})
	t.Run("summary keeps more than a comment", func(t *testing.T) {
		summary, comment := DiffMarkdown(large, SummaryBudget), DiffMarkdown(large, CommentBudget)
		assert.Assert(t, strings.Contains(summary, "forced by `QueueName`"), "the job summary should list resources")
		assert.Assert(t, len(summary) > len(comment))
	})
}

func BenchmarkDiffMarkdown(b *testing.B) {
	r := report(largeDiff(50, 200))
	for _, budget := range []Budget{CommentBudget, CheckRunBudget, SummaryBudget, Unlimited} {
		name := budget.Channel
		if name == "" {
			name = "unlimited"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DiffMarkdown(r, budget)
			}
		})
	}
}

func BenchmarkDecodeAndRender(b *testing.B) {
	raw, err := json.Marshal(largeDiff(50, 200).Stacks)
	assert.NilError(b, err)
	for _, budget := range []Budget{CommentBudget, SummaryBudget} {
		b.Run(budget.Channel, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				var d model.Diff
				if err := json.Unmarshal(raw, &d.Stacks); err != nil {
					b.Fatal(err)
				}
				DiffMarkdown(report(d), budget)
			}
		})
	}
}

func TestFooterLinks(t *testing.T) {
	tests := []struct {
		name, url, want string
	}{
		{name: "run URL", url: "https://github.com/o/r/actions/runs/1", want: "[view run](https://github.com/o/r/actions/runs/1)"},
		{name: "parentheses escaped", url: "https://h/a)(b <c>", want: "[view run](https://h/a%29%28b%20%3Cc%3E)"},
		{name: "script scheme dropped", url: "javascript:alert(1)", want: ""},
		{name: "relative dropped", url: "/o/r/actions", want: ""},
		{name: "empty", url: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DiffMarkdown(DiffReport{RunURL: tc.url}, Unlimited)
			if tc.want == "" {
				assert.Assert(t, !strings.Contains(got, "view run"), got)
				return
			}
			assert.Assert(t, strings.Contains(got, "<sub>"+tc.want+"</sub>"), got)
		})
	}
	assert.Equal(t, shortDigest(testDigest), "v1:3f2a9c0d41b7")
	assert.Equal(t, shortDigest("v1:3f2a"), "v1:3f2a")
	assert.Equal(t, shortDigest("nocolon0123456789abcdef"), "nocolon012345678")
}

// A note is a quoted ℹ️ line under the headline, at every level, escaped
// like any text; a failure report leaves it out.
func TestDiffMarkdownNotes(t *testing.T) {
	r := report(decodeDiff(t, "diff-v1-nochange.json"))
	r.Notes = []string{"NoEcho positions are unknown <b>@here</b>"}
	got := DiffMarkdown(r, Unlimited)
	assert.Assert(t, strings.Contains(got, "✅ **No changes.**\n\n> ℹ️ NoEcho positions are unknown <code>&lt;b&gt;@here&lt;/b&gt;</code>\n\n"), got)
	assertSafe(t, got)
	without := r
	without.Notes = nil
	assert.Equal(t, strings.Replace(got, "> ℹ️ NoEcho positions are unknown <code>&lt;b&gt;@here&lt;/b&gt;</code>\n\n", "", 1), DiffMarkdown(without, Unlimited))

	levels, render, _ := diffRenderer(r, CommentBudget)
	for level := range levels {
		w := NewWriter(Unlimited)
		render(w, level)
		assert.Assert(t, strings.Contains(w.String(), "> ℹ️ NoEcho positions are unknown"), "level %d", level)
	}

	r.Error = "boom"
	assert.Assert(t, !strings.Contains(DiffMarkdown(r, Unlimited), "ℹ️"))
}

// policyDiff is the review finding: a policy of 60 statements gains an
// admin statement at index at. Cut at BlockMax characters, the old and new
// documents read the same and the admin statement never showed.
func policyDiff(at int) model.Diff {
	var statements []string
	for i := range 60 {
		statements = append(statements, fmt.Sprintf(`{"Sid":"Read%02d","Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::bucket-%02d","arn:aws:s3:::bucket-%02d/*"]}`, i, i, i))
	}
	policy := func(s []string) model.Value {
		return model.JSONValue(`{"Version":"2012-10-17","Statement":[` + strings.Join(s, ",") + `]}`)
	}
	grown := slices.Insert(slices.Clone(statements), at, `{"Action":"*","Resource":"*"}`)
	return model.Diff{Stacks: []model.StackDiff{{
		Stack: "App", Region: "us-east-1",
		Changes: []model.ResourceChange{{LogicalID: "ReadPolicy", ChangeType: model.ChangeUpdate, ResourceType: "AWS::IAM::Policy",
			PropertyChanges: []model.PropertyChange{{Path: "PolicyDocument", Old: policy(statements), New: policy(grown)}}}},
	}}}
}

func TestDiffMarkdownShowsAnAddedStatementInALongPolicy(t *testing.T) {
	end := policyDiff(60)
	change := end.Stacks[0].Changes[0].PropertyChanges[0]
	assert.Equal(t, ShowValue(change.Old, false).Block, ShowValue(change.New, false).Block, "cut blocks read the same")

	got := DiffMarkdown(report(end), CommentBudget)
	golden.Assert(t, got, "diff-policy-admin.golden")
	assertSafe(t, got)

	admin := "  +      \"Action\": \"*\",\n  +      \"Resource\": \"*\"\n"
	for _, at := range []int{0, 30, 60} {
		r := report(policyDiff(at))
		for _, b := range []Budget{CommentBudget, CheckRunBudget, SummaryBudget, Unlimited} {
			got := DiffMarkdown(r, b)
			assert.Assert(t, strings.Contains(got, admin), "statement %d, %s:\n%s", at, b.Channel, got)
			assert.Assert(t, !strings.Contains(got, "not shown"), "statement %d, %s", at, b.Channel)
		}
		// Every level that shows values shows the added lines.
		levels, render, _ := diffRenderer(r, CommentBudget)
		for level := range min(levels, levelPaths) {
			w := NewWriter(Unlimited)
			render(w, level)
			assert.Assert(t, strings.Contains(w.String(), "  +      \"Action\": \"*\",\n"), "statement %d, level %d:\n%s", at, level, w.String())
		}
	}
}

// The job summary is where the other channels send readers for the full
// report: it shows values whole until the report has to be shortened.
func TestDiffMarkdownValueLimitsPerChannel(t *testing.T) {
	blob := strings.Repeat("0123456789", 1000)
	r := report(model.Diff{Stacks: []model.StackDiff{{Stack: "S", Region: "us-east-1",
		Changes: []model.ResourceChange{{LogicalID: "Big", ChangeType: model.ChangeCreate, ResourceType: "Custom::Big",
			PropertyChanges: []model.PropertyChange{{Path: "Blob", New: model.StringValue(blob)}}}}}}})
	for _, tc := range []struct {
		budget Budget
		whole  bool
	}{
		{budget: Unlimited, whole: true},
		{budget: SummaryBudget, whole: true},
		{budget: CommentBudget},
		{budget: CheckRunBudget},
		{budget: Budget{MaxChars: 50000, Channel: "the tracking issue"}},
		{budget: Budget{MaxChars: 50000, ValueMax: WholeValues}, whole: true},
		{budget: Budget{MaxChars: 50000, ValueMax: 500}},
	} {
		got := DiffMarkdown(r, tc.budget)
		assert.Equal(t, strings.Contains(got, blob), tc.whole, "%+v", tc.budget)
		assert.Equal(t, strings.Contains(got, "more characters) — the whole value is in "+testHint+"."), !tc.whole, "%+v", tc.budget)
	}
	// A job summary that has to collapse cuts values as a comment does,
	// under the note saying where the full report is.
	summary := SummaryBudget
	summary.Hint = "the report JSON file"
	_, render, note := diffRenderer(r, summary)
	w := NewWriter(Unlimited)
	render(w, levelCollapsed)
	assert.Assert(t, strings.Contains(w.String(), note))
	assert.Assert(t, strings.Contains(w.String(), "… (7000 more characters)\n"), w.String())
}

// A diff too long for a comment gives up context, then changed lines, and
// says how many it left out and where the whole change is.
func TestDiffMarkdownLongDiffSaysWhatItLeavesOut(t *testing.T) {
	var old, cur []string
	for i := range 400 {
		old = append(old, fmt.Sprintf("line %03d", i))
		cur = append(cur, fmt.Sprintf("LINE %03d", i))
	}
	r := report(model.Diff{Stacks: []model.StackDiff{{Stack: "S", Region: "us-east-1",
		Changes: []model.ResourceChange{{LogicalID: "Fn", ChangeType: model.ChangeUpdate, ResourceType: "AWS::Lambda::Function",
			PropertyChanges: []model.PropertyChange{{Path: "Code.ZipFile",
				Old: model.StringValue(strings.Join(old, "\n")), New: model.StringValue(strings.Join(cur, "\n"))}}}}}}})

	comment := DiffMarkdown(r, CommentBudget)
	assertSafe(t, comment)
	assert.Assert(t, !strings.Contains(comment, "✂️"), "the report itself fits")
	// Both sides of the change show their first lines.
	assert.Assert(t, strings.Contains(comment, "  -line 000\n  -line 001\n"), comment)
	assert.Assert(t, strings.Contains(comment, "  +LINE 000\n  +LINE 001\n"), comment)
	assert.Assert(t, strings.Contains(comment, " more removed lines not shown\n"), comment)
	assert.Assert(t, strings.Contains(comment, " more added lines not shown\n"), comment)
	assert.Assert(t, strings.Contains(comment, "Shortened to fit; the whole change is in "+testHint+"."))

	summary := DiffMarkdown(r, SummaryBudget)
	assert.Assert(t, strings.Contains(summary, "  +LINE 399\n"))
	assert.Assert(t, !strings.Contains(summary, "not shown"))
	assert.Assert(t, !strings.Contains(summary, "Shortened"))
}

func TestDiffMarkdownNoStack(t *testing.T) {
	for _, d := range []model.Diff{{}, {Stacks: []model.StackDiff{}}} {
		got := DiffMarkdown(report(d), CommentBudget)
		assert.Assert(t, strings.Contains(got, "⚠️ **cdkd diffed no stack:** check the `stacks` and `all` inputs and the `app`."), got)
		assert.Assert(t, !strings.Contains(got, "No changes"))
		assert.Assert(t, !strings.Contains(got, "✅"))
		assert.Equal(t, CountsText(d.Totals()), "no changes", "counts are unchanged")
	}
}
