package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// cdkd's plan prints values in plaintext: a value shows only where the
// detection showed that position's values; anything indented under a
// resource that is not a value line may continue one, and is hidden.
func TestPlanText(t *testing.T) {
	set := redactSet()
	detected := model.Drift{Stacks: []model.StackDrift{
		{Stack: "App", Drifted: []model.DriftedResource{
			{Resource: model.Resource{LogicalID: "Queue"}, Changes: []model.DriftChange{{Path: "VisibilityTimeout", State: str("30"), AWS: str("60")}}},
			{Resource: model.Resource{LogicalID: "PwParam"}, Changes: []model.DriftChange{{Path: "Value", State: str(model.Hidden), AWS: str(model.Hidden), Secret: model.SecretNoEcho, HiddenCase: model.HiddenNoEchoParameter}}},
		}},
		{Stack: "NoAsm", Drifted: []model.DriftedResource{
			{Resource: model.Resource{LogicalID: "Queue"}, Changes: []model.DriftChange{{Path: "VisibilityTimeout", State: str("30"), AWS: str("60")}}},
		}},
	}}
	value := func(stack, id, path, before, after string) cdkd.PlanLine {
		return cdkd.PlanLine{Value: true, Stack: stack, LogicalID: id, Path: path, Before: before, After: after}
	}
	lines := []cdkd.PlanLine{
		{Text: "→ App/Queue (AWS::SQS::Queue)"},
		value("App", "Queue", "VisibilityTimeout", "60", "30-tenant-queue-secret"),
		{Text: "    continued value line"},
		{Text: "    ⚠ kept warning tenant-queue-secret"},
		{Text: "→ App/PwParam"},
		value("App", "PwParam", "Value", "live-pw", "stored-pw"),
		value("NoAsm", "Queue", "VisibilityTimeout", "60", "30"),
		value("App", "Unknown", "Path", "a", "b"),
		{Text: "Revert summary: 1 reverted"},
	}
	got := PlanText(lines, detected, []string{"NoAsm"}, set)
	assert.DeepEqual(t, got, []string{
		"→ App/Queue (AWS::SQS::Queue)",
		"    VisibilityTimeout: 60 -> 30-***",
		"    " + HiddenPlanLine,
		"    ⚠ kept warning ***",
		"→ App/PwParam",
		"    Value: *** -> ***",
		"    VisibilityTimeout: *** -> ***", // a stack whose values were all hidden
		"    Path: *** -> ***",              // a position the detection did not show
		"Revert summary: 1 reverted",
	})
	assert.Assert(t, PlanText(nil, detected, nil, set) == nil)
}

func TestResolution(t *testing.T) {
	set := redactSet()
	rr := model.DriftResolution{
		Mode:      "revert",
		Resources: []string{"App/tenant-queue-secret"},
		Failed:    []model.ResolutionFailure{{Resource: "App/tenant-queue-secret", Line: "✗ tenant-queue-secret: denied"}},
		Summary:   []string{"Revert summary: tenant-queue-secret"},
		Outcomes: []model.ResolvedResource{{Stack: "App", LogicalID: "tenant-queue-secret", Type: "AWS::SQS::Queue", Outcome: model.ResolutionFailed,
			Reason: "update failed:\ntenant-queue-secret exists"}},
		Warnings:   []string{"⚠ preserved tenant-queue-secret"},
		PlanText:   []string{"→ App/tenant-queue-secret"},
		Output:     []string{"✓ tenant-queue-secret reverted"},
		Error:      "cdkd exited 2:\ntenant-queue-secret",
		AfterError: "read tenant-queue-secret:\ndenied",
	}
	Resolution(&rr, set)
	b, err := json.Marshal(rr)
	assert.NilError(t, err)
	assert.Assert(t, !strings.Contains(string(b), "tenant-queue-secret"), string(b))
	assert.Assert(t, !strings.Contains(rr.Outcomes[0].Reason, "\n"), "a reason is one line: %q", rr.Outcomes[0].Reason)
	assert.Assert(t, !strings.Contains(rr.Error, "\n"), "an error is one line: %q", rr.Error)
	assert.Assert(t, !strings.Contains(rr.AfterError, "\n"), "an error is one line: %q", rr.AfterError)
	assert.Equal(t, rr.Outcomes[0].Type, "AWS::SQS::Queue")
}

// --accept's refusal of a property (cdkd 0.284.40: "QueueName: SKIPPED —
// …" under its resource) is shown by name with cdkd's reason, never hidden
// as a line of cdkd's plan; what it says is redacted.
func TestPlanTextSkippedLine(t *testing.T) {
	set := redactSet()
	got := PlanText([]cdkd.PlanLine{
		{Text: "  ~ SecretNamedQueue (AWS::SQS::Queue)"},
		{Text: "    QueueName: SKIPPED — it carries a secret dynamic reference tenant-queue-secret", Skipped: true,
			Stack: "StackA", LogicalID: "SecretNamedQueue", Path: "QueueName", Before: "it carries a secret dynamic reference tenant-queue-secret"},
	}, model.Drift{}, nil, set)
	assert.DeepEqual(t, got, []string{
		"  ~ SecretNamedQueue (AWS::SQS::Queue)",
		"    QueueName: SKIPPED — it carries a secret dynamic reference ***",
	})
}

// The later lines of a multi-line value are hidden by its position, short
// ones included (the redactor searches no value under 4 characters); a
// value the detection showed keeps its lines, redacted by value.
func TestPlanTextMultiLineValue(t *testing.T) {
	set := redactSet()
	detected := model.Drift{Stacks: []model.StackDrift{{Stack: "App", Drifted: []model.DriftedResource{
		{Resource: model.Resource{LogicalID: "PwParam"}, Changes: []model.DriftChange{{Path: "Value", State: str(model.Hidden), AWS: str(model.Hidden), Secret: model.SecretNoEcho}}},
		{Resource: model.Resource{LogicalID: "Doc"}, Changes: []model.DriftChange{{Path: "Content", State: str("a\nb"), AWS: str("c\nd")}}},
	}}}}
	cont := func(id, path, text string) cdkd.PlanLine {
		return cdkd.PlanLine{Text: text, Continuation: true, Stack: "App", LogicalID: id, Path: path}
	}
	lines := []cdkd.PlanLine{
		{Text: "  → provider.update on PwParam (AWS::SSM::Parameter): revert 1 property path"},
		{Text: "    Value: live-first-line", Value: true, Stack: "App", LogicalID: "PwParam", Path: "Value", Before: "live-first-line"},
		cont("PwParam", "Value", "ab"),
		cont("PwParam", "Value", "x.y = z"),
		cont("PwParam", "Value", "end -> stored"),
		{Text: "  → provider.update on Doc (AWS::SSM::Document): revert 1 property path"},
		{Text: "    Content: a", Value: true, Stack: "App", LogicalID: "Doc", Path: "Content", Before: "a"},
		cont("Doc", "Content", "b -> c"),
		cont("Doc", "Content", "d tenant-queue-secret"),
		{Text: "Revert summary: 2 reverted."},
	}
	assert.DeepEqual(t, PlanText(lines, detected, nil, set), []string{
		"  → provider.update on PwParam (AWS::SSM::Parameter): revert 1 property path",
		"    Value: *** -> ***",
		"    " + HiddenPlanLine,
		"  → provider.update on Doc (AWS::SSM::Document): revert 1 property path",
		"    Content: a",
		"b -> c",
		"d ***",
		"Revert summary: 2 reverted.",
	})
}

// The live log of a resolution hides a multi-line value's later lines, up
// to the next line of the plan's own, whatever they look like.
func TestFilterPlanHidesContinuations(t *testing.T) {
	var out bytes.Buffer
	f := FilterPlan(&out)
	for _, l := range []string{
		"  → provider.update on PemParam (AWS::SSM::Parameter): revert 1 property path",
		"    Value: -----BEGIN KEY-----", "ab", "", "x.y = z", "-----END KEY----- -> old",
		"  ✓ StackA/PemParam (AWS::SSM::Parameter): reverted.", "Revert summary: 1 reverted.",
	} {
		_, err := f.Write([]byte(l + "\n"))
		assert.NilError(t, err)
	}
	assert.Equal(t, out.String(), strings.Join([]string{
		"  → provider.update on PemParam (AWS::SSM::Parameter): revert 1 property path",
		"    Value: *** -> ***",
		"    " + HiddenPlanLine,
		"  ✓ StackA/PemParam (AWS::SSM::Parameter): reverted.", "Revert summary: 1 reverted.", "",
	}, "\n"))
}
