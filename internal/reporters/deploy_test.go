package reporters

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Regenerate with: go test ./reporters/... -update

const deploySHA = "9999999999999999999999999999999999999999"

func deployBase(outcome DeployOutcome) DeployReport {
	return DeployReport{
		Label:          "prod",
		Outcome:        outcome,
		SHA:            deploySHA,
		RunURL:         "https://github.com/o/r/actions/runs/123",
		CdkdVersion:    "0.284.40",
		Digest:         testDigest,
		PR:             7,
		ReviewedSHA:    "1111111111111111111111111111111111111111",
		ReviewURL:      "https://github.com/o/r/pull/7#issuecomment-1",
		FullReportHint: testHint,
	}
}

func deployedStacks() []DeployedStack {
	return []DeployedStack{
		{
			Stack: "StackA", Region: "us-east-1", Result: "SUCCEEDED", Created: 1, Updated: 2, Deleted: 1, Duration: "0.12s",
			Resources: []DeployedResource{
				{LogicalID: "ExtraTopic17EFD352", Type: "AWS::SNS::Topic", Result: "deleted", Duration: "18 ms"},
				{LogicalID: "NewQueue1C62264E", Type: "AWS::SQS::Queue", Result: "created", Duration: "46 ms"},
				{LogicalID: "NoEchoParam2FCCC8BD", Type: "AWS::SSM::Parameter", Result: "updated", Duration: "54 ms"},
				{LogicalID: "TopicBFC7AF6E", Type: "AWS::SNS::Topic", Result: "updated", Duration: "29 ms"},
			},
			Outputs: []StackOutput{
				{Name: "BucketName", Value: "stacka-bucket83908e77"},
				{Name: "DbPasswordEcho", Value: "whatever it holds", Secret: true},
				{Name: "QueueUrl", Value: "http://localhost:4566/000000000000/***"},
			},
		},
		{Stack: "StackB", Region: "us-east-1", Note: "No deploy run was recorded for this stack: nothing in it changed."},
	}
}

func TestDeployGoldens(t *testing.T) {
	deployed := deployBase(OutcomeDeployed)
	deployed.Reviewed = true
	deployed.Message = "The change set is the one reviewed in pull request #7 at 1111111."
	deployed.Stacks = deployedStacks()
	deployed.Destructive = []DestructiveChange{
		{Stack: "StackA", LogicalID: "ExtraTopic17EFD352", Type: "AWS::SNS::Topic", Action: model.ActionDelete, AllowedBy: "the pull request label cdkd:allow-destructive"},
	}

	reviewed := model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{
		{LogicalID: "TopicBFC7AF6E", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic", PropertyChanges: []model.PropertyChange{
			{Path: "DisplayName", Old: model.StringValue("fixture-topic-v1"), New: model.StringValue("fixture-topic-v2")}}},
		{LogicalID: "NoEchoParam2FCCC8BD", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SSM::Parameter", PropertyChanges: []model.PropertyChange{
			{Path: "Value", Old: model.HiddenValue(), New: model.HiddenValue(), Secret: model.SecretNoEcho}}},
		{LogicalID: "ExtraTopic17EFD352", ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"},
	}, OutputChanges: []model.OutputChange{{Name: "QueueArn", ChangeType: model.OutputAdd, New: model.StringValue("arn:a")}}}}}
	current := model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", Changes: []model.ResourceChange{
		{LogicalID: "TopicBFC7AF6E", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic", PropertyChanges: []model.PropertyChange{
			{Path: "DisplayName", Old: model.StringValue("fixture-topic-v1"), New: model.StringValue("fixture-topic-v3")},
			{Path: "TopicName", Old: model.StringValue("a"), New: model.StringValue("b"), RequiresReplacement: true}}},
		{LogicalID: "NoEchoParam2FCCC8BD", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SSM::Parameter", PropertyChanges: []model.PropertyChange{
			{Path: "Value", Old: model.HiddenValue(), New: model.HiddenValue(), Secret: model.SecretNoEcho},
			{Path: "Description", New: model.StringValue("new")}}},
		{LogicalID: "Sneaky", ChangeType: model.ChangeCreate, ResourceType: "AWS::IAM::Role"},
	}, OutputChanges: []model.OutputChange{{Name: "QueueArn", ChangeType: model.OutputAdd, New: model.StringValue("arn:b")}}}}}
	cmp := model.Compare(reviewed, current)
	changed := deployBase(OutcomeRefused)
	changed.Reason, changed.Title = "diff-changed", "Diff changed since review"
	changed.Message = "The change set differs from the one reviewed in pull request #7 (reviewed digest v1:aaa, now v1:bbb): not deploying."
	changed.Comparison = &cmp

	prints := model.CompareFingerprints(reviewed.Fingerprints(), current)
	fingerprints := changed
	fingerprints.Comparison = &prints
	fingerprints.ComparisonNote = "The reviewed change set was too large to store whole: the items that differ are listed, not how."

	destructive := deployBase(OutcomeRefused)
	destructive.Reason, destructive.Title = "destructive-refused", "Destructive changes refused"
	destructive.Message = "2 resources would be destroyed and nothing allows it."
	destructive.Reviewed = true
	destructive.Destructive = []DestructiveChange{
		{Stack: "StackA", LogicalID: "ExtraTopic17EFD352", Type: "AWS::SNS::Topic", Action: model.ActionDelete},
		{Stack: "StackA", LogicalID: "Queue4A7E3555", Type: "AWS::SQS::Queue", Action: model.ActionReplace, ForcedBy: []string{"QueueName"}},
		{Stack: "StackA", LogicalID: "Version1", Type: "AWS::Lambda::Version", Action: model.ActionDelete, AllowedBy: "allow-destroy-types (AWS::Lambda::Version)"},
	}

	noReview := deployBase(OutcomeRefused)
	noReview.PR, noReview.ReviewedSHA, noReview.ReviewURL = 0, "", ""
	noReview.Reason, noReview.Title = "no-reviewed-diff", "No reviewed diff"
	noReview.Message = "No pull request was found for commit 9999999 (a direct push), so there is no reviewed diff to compare with: not deploying."
	noReview.Digest = ""

	unreviewed := deployBase(OutcomeDeployed)
	unreviewed.PR, unreviewed.ReviewedSHA, unreviewed.ReviewURL = 0, "", ""
	unreviewed.Message = "The change set was not verified against a review (require-reviewed-diff is false); its digest is " + testDigest + "."
	unreviewed.Warnings = []string{"No pull request was found for commit 9999999, so there is no reviewed diff to compare with; deploying anyway because require-reviewed-diff is false"}
	unreviewed.Stacks = deployedStacks()[1:]

	locked := deployBase(OutcomeLocked)
	locked.Reason = "state-locked"
	locked.Message = "stack StackA (us-east-1) is locked by ci-job-42@runner-7 (operation: deploy), lock expires in 12m49s"
	locked.Lock = &DeployLock{Stack: "StackA", Region: "us-east-1", Owner: "ci-job-42@runner-7", Operation: "deploy", ExpiresIn: "12m49s",
		Unlock: "cdkd force-unlock StackA --stack-region us-east-1"}
	locked.StderrTail = []string{"Error: 1 node(s) failed:", "  - stack:StackA: Failed to acquire lock for stack 'StackA' (us-east-1) after 4 attempts."}

	partial := deployBase(OutcomePartial)
	partial.Reason = "partial"
	partial.Message = "PartialFailureError: 1 resource(s) were left unaddressed"
	partial.Stacks = []DeployedStack{{Stack: "StackA", Region: "us-east-1", Result: "FAILED", Updated: 1, Failed: 1, Resources: []DeployedResource{
		{LogicalID: "NewQueue1C62264E", Type: "AWS::SQS::Queue", Result: "failed", Duration: "12 ms", Error: "QueueAlreadyExists: A queue already exists with the same name"},
		{LogicalID: "SkippedParam", Type: "AWS::SSM::Parameter", Result: "skipped"},
		{LogicalID: "TopicBFC7AF6E", Type: "AWS::SNS::Topic", Result: "updated", Duration: "29 ms"},
	}}}
	partial.StderrTail = []string{"PartialFailureError: 1 resource(s) were left unaddressed"}

	cancelled := deployBase(OutcomeCancelled)
	cancelled.Reason = "cancelled"
	cancelled.Message = "The job was cancelled while cdkd deploy ran; cdkd was interrupted so it could release its lock."

	injection := deployBase(OutcomeFailed)
	injection.Label = "</details><img src=x>"
	injection.Reason = "deploy-failed"
	injection.Title = "cdkd deploy failed"
	injection.Message = "Error: @octocat see #12 <script>alert(1)</script> ``` | x"
	injection.Stacks = []DeployedStack{{Stack: "Stack</summary>", Failed: 1, Resources: []DeployedResource{
		{LogicalID: "Res`ource", Type: "AWS::X::Y", Result: "failed", Error: "</details>\n## heading @admin"}},
		Outputs: []StackOutput{{Name: "Out|put", Value: "```\n<b>bold</b>"}}}}
	injection.StderrTail = []string{"```", "</details>"}

	for name, r := range map[string]DeployReport{
		"deployed": deployed, "diff-changed": changed, "fingerprints": fingerprints, "destructive": destructive,
		"no-review": noReview, "unreviewed": unreviewed, "locked": locked, "partial": partial, "cancelled": cancelled,
		"injection": injection,
	} {
		t.Run(name, func(t *testing.T) {
			got := DeployMarkdown(r, Unlimited)
			golden.Assert(t, got, "deploy_"+name+".golden")
			assert.Equal(t, got, DeployMarkdown(r, Unlimited), "deterministic")
		})
	}
}

// No secret value stored in a secret output reaches the report.
func TestDeploySecretOutputHidden(t *testing.T) {
	r := deployBase(OutcomeDeployed)
	r.Stacks = []DeployedStack{{Stack: "S", Outputs: []StackOutput{{Name: "Pw", Value: "hunter2-noecho-v1", Secret: true}}}}
	got := DeployMarkdown(r, Unlimited)
	assert.Assert(t, !strings.Contains(got, "hunter2"))
	assert.Assert(t, is.Contains(got, "`Pw`: `***` · 🔒 secret"))
}

func TestDeployHeadline(t *testing.T) {
	tests := []struct {
		r    DeployReport
		want string
	}{
		{DeployReport{Outcome: OutcomeDeployed, Stacks: deployedStacks()}, "Deployed: 1 created, 2 updated, 1 deleted"},
		{DeployReport{Outcome: OutcomeDeployed}, "Deployed: no resource changed"},
		{DeployReport{Outcome: OutcomeRefused, Title: "Diff changed since review"}, "Deploy refused: Diff changed since review"},
		{DeployReport{Outcome: OutcomeRefused}, "Deploy refused"},
		{DeployReport{Outcome: OutcomePartial, Stacks: []DeployedStack{{Updated: 1, Failed: 2}}}, "Partially deployed: 1 updated, 2 failed"},
		{DeployReport{Outcome: OutcomeLocked}, "Deploy not started: state locked"},
		{DeployReport{Outcome: OutcomeCancelled}, "Deploy cancelled"},
		{DeployReport{Outcome: OutcomeFailed, Title: "cdkd diff failed"}, "Deploy failed: cdkd diff failed"},
		{DeployReport{Outcome: OutcomeFailed}, "Deploy failed"},
	}
	for _, tc := range tests {
		assert.Equal(t, DeployHeadline(tc.r), tc.want)
	}
}

// A huge deploy degrades level by level and always fits.
func TestDeployWithinBudgets(t *testing.T) {
	r := deployBase(OutcomePartial)
	for s := 0; s < 40; s++ {
		st := DeployedStack{Stack: fmt.Sprintf("Stack%02d", s), Region: "us-east-1"}
		for i := 0; i < 200; i++ {
			st.Resources = append(st.Resources, DeployedResource{LogicalID: fmt.Sprintf("Resource%04d", i), Type: "AWS::SNS::Topic", Result: "updated", Duration: "12 ms"})
			st.Updated++
		}
		st.Resources = append(st.Resources, DeployedResource{LogicalID: "Broken", Type: "AWS::SQS::Queue", Result: "failed", Error: strings.Repeat("e", 2000)})
		st.Failed++
		st.Outputs = []StackOutput{{Name: "Big", Value: strings.Repeat("v", 5000)}}
		r.Stacks = append(r.Stacks, st)
	}
	var items []model.ItemDelta
	for i := 0; i < 3000; i++ {
		items = append(items, model.ItemDelta{Delta: model.DeltaAdded, Stack: "Stack00", Name: fmt.Sprintf("New%04d", i), Type: "AWS::SNS::Topic", Current: "create"})
	}
	r.Comparison = &model.Comparison{Items: items, Detailed: true}
	full := DeployMarkdown(r, Unlimited)
	for _, b := range []Budget{CommentBudget, CheckRunBudget, SummaryBudget, {MaxChars: 3000, Channel: "the PR comment"}, {MaxBytes: 600}} {
		got := DeployMarkdown(r, b)
		assert.Assert(t, b.Fits(got), "%d bytes, %d chars for %+v", len(got), utf8.RuneCountInString(got), b)
		if b.MaxBytes != 600 && !b.Fits(full) {
			assert.Assert(t, strings.Contains(got, "Report shortened"), "budget %+v", b)
			assert.Assert(t, strings.Contains(got, "Partially deployed"), "budget %+v", b)
		}
	}
	// The failures survive the shortening of the comment.
	got := DeployMarkdown(r, CommentBudget)
	assert.Assert(t, strings.Contains(got, "`Broken`"))
}

// Every untrusted field of a deploy report (stack names, logical ids,
// types, property paths, error messages, outputs, cdkd's stderr) is inert
// in every rendering, whatever the budget: no foreign HTML, image, mention,
// reference or bidi control, and no <details> closed early.
func TestDeployInjectionIsInert(t *testing.T) {
	r := deployBase(OutcomeFailed)
	r.Label = hostile
	r.Reason, r.Title, r.Message = "deploy-failed", "cdkd deploy failed", hostile
	r.Warnings = []string{hostile}
	cmp := model.Compare(injectionDiff(), model.Diff{})
	r.Comparison = &cmp
	r.ComparisonNote = hostile
	r.Destructive = []DestructiveChange{{Stack: hostile, LogicalID: hostile, Type: hostile, Action: model.ActionReplace, ForcedBy: []string{hostile}, AllowedBy: hostile}}
	r.Lock = &DeployLock{Stack: hostile, Region: hostile, Owner: hostile, Operation: hostile, ExpiresIn: hostile, Unlock: hostile}
	r.Stacks = []DeployedStack{{Stack: hostile, Region: hostile, Result: hostile, Duration: hostile, Note: hostile,
		Resources: []DeployedResource{{LogicalID: hostile, Type: hostile, Result: "failed", Duration: hostile, Error: hostile}},
		Outputs:   []StackOutput{{Name: hostile, Value: hostile}, {Name: hostile, Value: hostile, Secret: true}}}}
	r.StderrTail = strings.Split(hostile, "\n")
	for _, b := range []Budget{Unlimited, CommentBudget, {MaxChars: 4000}, {MaxChars: 1500}, {MaxChars: 600}} {
		got := DeployMarkdown(r, b)
		assertSafe(t, got)
	}
	assertSafe(t, Text(DeployHeadline(r)))
}
