package cdkd

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Today's cdkd prints the resolution's plan, ✓ lines and summary on stdout
// after the JSON document (samples 93 and 94): read both, drop neither.
func TestResolutionSamplesAfterTheJSON(t *testing.T) {
	t.Run("93 revert", func(t *testing.T) {
		res := sample(t, "93-drift-stackA-revert-yes-json", "drift", "StackA", "--json", "--revert", "-y")
		r, err := ClassifyDriftResolution(res, ResolutionRevert)
		assert.NilError(t, err)
		assert.DeepEqual(t, r.Output.Resources, []model.ResolvedResource{
			{Stack: "StackA", LogicalID: "NoEchoParam2FCCC8BD", Type: "AWS::SSM::Parameter", Outcome: model.ResolutionReverted},
		})
		assert.DeepEqual(t, r.Output.Counts, map[string]int{"reverted": 1})
		assert.DeepEqual(t, r.Summary, []string{"Revert summary: 1 reverted."})
		var values []PlanLine
		for _, l := range r.Output.Lines {
			if l.Value {
				values = append(values, l)
			}
		}
		assert.Assert(t, is.Len(values, 1))
		assert.Equal(t, values[0].LogicalID, "NoEchoParam2FCCC8BD")
		assert.Equal(t, values[0].Path, "Value")
		assert.Equal(t, values[0].Before, "oob-noecho-value")
		decoded, err := DecodeDrift(res.Stdout)
		assert.NilError(t, err, "the document before the text still decodes")
		assert.Equal(t, len(decoded.Stacks[0].Drifted), 1)
	})
	t.Run("94 accept", func(t *testing.T) {
		res := sample(t, "94-drift-stackA-accept-yes-json", "drift", "StackA", "--json", "--accept", "-y")
		r, err := ClassifyDriftResolution(res, ResolutionAccept)
		assert.NilError(t, err)
		assert.DeepEqual(t, r.Output.Resources, []model.ResolvedResource{
			{Stack: "StackA", LogicalID: "NoEchoParam2FCCC8BD", Type: "AWS::SSM::Parameter", Outcome: model.ResolutionAccepted},
		})
		assert.Assert(t, is.Contains(r.Summary[0], "✓ State updated for StackA"))
	})
}

func TestParseResolutionOutcomes(t *testing.T) {
	lines := []string{
		"Plan (--accept): update cdkd state for StackA (us-east-1):",
		"  ~ Fn (AWS::Lambda::Function)",
		"    Environment: a -> b",
		"  ~ Db (AWS::RDS::DBInstance)",
		"  ! Db (AWS::RDS::DBInstance): MasterUserPassword SKIPPED — secret-bearing; its AWS-current value could not be identified",
		"✓ State updated for StackA (us-east-1): accepted drift on 1 resource(s).",
	}
	r := ParseResolution(lines, ResolutionAccept)
	assert.DeepEqual(t, r.Resources, []model.ResolvedResource{
		{Stack: "StackA", LogicalID: "Db", Type: "AWS::RDS::DBInstance", Outcome: model.ResolutionSkipped,
			Reason: "MasterUserPassword SKIPPED — secret-bearing; its AWS-current value could not be identified"},
		{Stack: "StackA", LogicalID: "Fn", Type: "AWS::Lambda::Function", Outcome: model.ResolutionAccepted},
	})

	revert := ParseResolution([]string{
		"✓ StackA/Topic (AWS::SNS::Topic): reverted.",
		"✗ StackA/Queue (AWS::SQS::Queue): AWS update failed — AccessDenied",
		"⊘ StackA/Lb (AWS::ElasticLoadBalancingV2::LoadBalancer): could not revert — ResourceUpdateNotSupportedError",
		"Revert summary: 1 reverted, 1 failed, 1 update-not-supported",
	}, ResolutionRevert)
	got := map[string]model.ResolutionOutcome{}
	for _, x := range revert.Resources {
		got[x.LogicalID] = x.Outcome
	}
	assert.DeepEqual(t, got, map[string]model.ResolutionOutcome{
		"Topic": model.ResolutionReverted, "Queue": model.ResolutionFailed, "Lb": model.ResolutionUpdateNotSupported,
	})
	assert.DeepEqual(t, revert.Counts, map[string]int{"reverted": 1, "failed": 1, "update-not-supported": 1})
}

// cdkd's per-resource lines are the evidence for a cause (samples 25, 86).
func TestNotComparedLinesSamples(t *testing.T) {
	refused := NotComparedLines(sample(t, "25-drift-stackC-refused-json").StderrTail)
	assert.Assert(t, is.Len(refused, 1))
	assert.Equal(t, refused[0].LogicalID, "XrSecretParam")
	assert.Equal(t, refused[0].Cause, model.CauseRefused)
	assert.Assert(t, is.Contains(refused[0].Reason, "carries no region of its own"))

	secure := NotComparedLines(sample(t, "86-drift-stackD-ssmsecure-json").StderrTail)
	assert.Assert(t, is.Len(secure, 1), "the two lines naming no resource are not evidence")
	assert.Equal(t, secure[0].LogicalID, "SecureTopic")
	assert.Equal(t, secure[0].Cause, model.CauseUnresolvedToken)
	assert.Assert(t, secure[0].TokenOverwrite)
	// cdkd states both revert cases in one sentence; the quote leaves it
	// out, for the report says the one that applies.
	assert.Equal(t, secure[0].Reason, "cdkd cannot resolve {{resolve:ssm-secure:/fixture/secure-value}} — those properties are NOT compared. (…) cdkd resolves 'secretsmanager' and 'ssm' references only.")

	assert.Assert(t, is.Len(NotComparedLines(sample(t, "20-drift-oob1-json").StderrTail), 0))
}

func TestSplitJSON(t *testing.T) {
	doc, text := SplitJSON([]byte("[]\n\nPlan (--revert): x\n  ✓ A/B (AWS::S3::Bucket): reverted.\n"))
	assert.Equal(t, string(doc), "[]")
	assert.DeepEqual(t, text, []string{"Plan (--revert): x", "  ✓ A/B (AWS::S3::Bucket): reverted."})
	doc, text = SplitJSON([]byte("not json"))
	assert.Equal(t, string(doc), "not json")
	assert.Assert(t, is.Len(text, 0))
}

func TestDecodeDriftKeepsUnknownGroups(t *testing.T) {
	d, err := DecodeDrift([]byte(`[{"stack":"S","region":"r","drifted":[],"clean":[],"notSupported":[],"notCompared":[],
		"masked":[{"logicalId":"Cr","type":"AWS::SSM::Parameter","path":"Value","stateValue":"x","awsValue":"y"}],"extra":3}]`))
	assert.NilError(t, err)
	assert.DeepEqual(t, d.Stacks[0].Groups, []model.DriftGroup{{Name: "masked", Entries: []model.GroupEntry{
		{Resource: model.Resource{LogicalID: "Cr", Type: "AWS::SSM::Parameter"}, Paths: []string{"Value"}},
	}}})
}

// cdkd 0.284.40 prints a refused property on its own line under its
// resource (sample 82's plan). A resource whose every property was
// skipped was not accepted, as cdkd's "accepted drift on N resource(s)"
// counts; each skipped property is named with cdkd's reason.
func TestParseResolutionSkippedProperties(t *testing.T) {
	res := sample(t, "82-drift-stackA-accept-dryrun-text")
	var lines []string
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if !strings.HasPrefix(StripANSI(l), "--dry-run") {
			lines = append(lines, l)
		}
	}
	// What a real --accept -y prints after the same plan (sample 94's line).
	lines = append(lines, "✓ State updated for StackA (us-east-1): accepted drift on 1 resource(s).")
	r := ParseResolution(lines, ResolutionAccept)
	reason := "it carries a secret dynamic reference and the value AWS currently holds is not the one the reference resolves to"
	assert.DeepEqual(t, r.Resources, []model.ResolvedResource{
		{Stack: "StackA", LogicalID: "Bucket83908E77", Type: "AWS::S3::Bucket", Outcome: model.ResolutionAccepted},
		{Stack: "StackA", LogicalID: "SecretNamedQueue", Type: "AWS::SQS::Queue", Outcome: model.ResolutionSkipped, Reason: "skipped QueueName (" + reason + ")"},
		{Stack: "StackA", LogicalID: "SecretRefParam4A819521", Type: "AWS::SSM::Parameter", Outcome: model.ResolutionSkipped, Reason: "skipped Value (" + reason + ")"},
	})
	assert.Equal(t, model.ResolutionCounts(r.Resources)[model.ResolutionAccepted], 1, "as cdkd counts")
	var skippedLines int
	for _, l := range r.Lines {
		if l.Skipped {
			skippedLines++
			assert.Equal(t, l.Before, reason)
		}
	}
	assert.Equal(t, skippedLines, 2)
}

// cdkd prints a multi-line string raw: the value line's later lines are
// not indented and may look like anything but the plan's own lines. They
// are marked as the value's continuation, blank lines between them
// skipped, up to the next line of the plan.
func TestParseResolutionMultiLineValue(t *testing.T) {
	stdout := strings.Join([]string{
		"Plan (--revert): push cdkd state values back into AWS for StackA (us-east-1):",
		"  → provider.update on PemParam (AWS::SSM::Parameter): revert 2 property paths",
		"    Value: -----BEGIN KEY-----",
		"ab",
		"",
		"x.y = z",
		"    Password: not a path of this resource",
		"-----END KEY----- -> -----BEGIN KEY-----",
		"cd",
		"-----END KEY-----",
		"    Description: old -> new",
		"    ! 1 AWS-authored tag(s) will be preserved",
		"  ✓ StackA/PemParam (AWS::SSM::Parameter): reverted.",
		"Revert summary: 1 reverted.",
	}, "\n")
	out := ParseResolution(strings.Split(stdout, "\n"), ResolutionRevert)
	var kinds []string
	for _, l := range out.Lines {
		switch {
		case l.Continuation:
			kinds = append(kinds, "cont "+l.Path)
		case l.Value:
			kinds = append(kinds, "value "+l.Path)
		default:
			kinds = append(kinds, "other")
		}
	}
	assert.DeepEqual(t, kinds, []string{"other", "other", "value Value", "cont Value", "cont Value",
		"value Password", "cont Password", "cont Password", "cont Password", "value Description", "other", "other", "other"})
	assert.DeepEqual(t, out.Warnings, []string{"! 1 AWS-authored tag(s) will be preserved"})
	assert.Equal(t, out.Resources[0].Outcome, model.ResolutionReverted)
	assert.Assert(t, PlanStructure("  ✓ StackA/PemParam (AWS::SSM::Parameter): reverted."))
	assert.Assert(t, !PlanStructure("      ✓ indented deeper: part of a value"))
}
