package reporters

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func secretDiff(n int) DiffReport {
	vals := []model.SecretValue{
		{LogicalID: "Db", Path: "MasterUserPassword", ResourceType: "AWS::RDS::DBInstance", Source: "NoEcho parameter DbPassword", Status: model.FingerprintChanged, Effect: model.EffectUpdated},
		{LogicalID: "Dir", Path: "Password", ResourceType: "AWS::RDS::DBCluster", Source: "NoEcho parameter AdPassword", Status: model.FingerprintChanged, Effect: model.EffectNotApplied, Remedy: model.RemedyRecreate, Stateful: true},
		{LogicalID: "Fn", Path: "Environment.Variables.TOKEN", Source: "{{resolve:secretsmanager:tok}}", Status: model.FingerprintUnchanged},
		{Output: "Pw", Source: "NoEcho parameter DbPassword", Status: model.FingerprintUnknown, Reason: "no fingerprint recorded yet"},
	}
	for i := range n {
		vals = append(vals, model.SecretValue{LogicalID: fmt.Sprintf("Filler%03d", i), Path: "Secret", Source: "NoEcho parameter P", Status: model.FingerprintUnchanged})
	}
	return DiffReport{Diff: model.Diff{Stacks: []model.StackDiff{{Stack: "Api", Region: "us-east-1", SecretValues: vals}}}}
}

func TestDiffMarkdownSecretValues(t *testing.T) {
	md := DiffMarkdown(secretDiff(0), Unlimited)
	for _, want := range []string{
		"**Plan:** no resource or output changes · 🔐 2 secret values changed",
		"<b>Api</b> · us-east-1 · no changes · 🔐 2 secrets changed",
		"- `Db`.`MasterUserPassword` · `NoEcho parameter DbPassword` · (secret) → (secret) · **changed** — will be updated\n",
		"- `Dir`.`Password` · `NoEcho parameter AdPassword` · (secret) → (secret) · **changed** — ⚠️ **cdkd will NOT apply this value**: the property is create-only and AWS never reports it, so cdkd keeps the resource; to apply it, deploy with `--recreate-via-cc-api Dir` (or `--recreate-via-sdk-provider Dir` for a resource cdkd provisioned through Cloud Control), which recreates the resource; `AWS::RDS::DBCluster` is stateful, so cdkd also needs `--force-stateful-recreation`, which **destroys its data**",
		"- `Fn`.`Environment.Variables.TOKEN` · `{{resolve:secretsmanager:tok}}` · (secret) · unchanged",
		"- output `Pw` · `NoEcho parameter DbPassword` · (secret) · unknown (no fingerprint recorded yet)",
		"> ⚠️ **1 changed secret value will NOT be applied by a deploy:**",
	} {
		assert.Assert(t, is.Contains(md, want), md)
	}
	assert.Assert(t, !strings.Contains(md, "No changes."), "a secret change is a change")
	assert.Equal(t, ChangeTitle(secretDiff(0).Diff), "2 secret values changed")
}

// However tight the budget, the warning that a value will not be applied
// survives, and the report fits.
func TestDiffMarkdownSecretValuesWithinBudget(t *testing.T) {
	for _, b := range []Budget{CommentBudget, {MaxBytes: 5000}, {MaxChars: 1500}} {
		md := DiffMarkdown(secretDiff(400), b)
		if b.MaxBytes > 0 {
			assert.Assert(t, len(md) <= b.MaxBytes, "%d > %d", len(md), b.MaxBytes)
		}
		if b.MaxChars > 0 {
			assert.Assert(t, len([]rune(md)) <= b.MaxChars)
		}
		assert.Assert(t, is.Contains(md, "🔐 2 secret values changed"), "budget %+v:\n%s", b, md)
		assert.Assert(t, is.Contains(md, "`--recreate-via-cc-api Dir`"), "budget %+v:\n%s", b, md)
	}
}

// A value rotated behind an unchanged reference is not applied by a deploy
// (cdkd compares the reference text: samples 67, 71, 78), and the report
// says so, with the remedy the property allows, never "will be updated".
func TestDiffMarkdownReferenceKept(t *testing.T) {
	vals := []model.SecretValue{
		{LogicalID: "SecretRefParam", Path: "Value", ResourceType: "AWS::SSM::Parameter", Source: "{{resolve:secretsmanager:my-secret:SecretString:password}}",
			Status: model.FingerprintChanged, Effect: model.EffectReferenceKept, Remedy: model.RemedyDriftRevert},
		{LogicalID: "SecretNamedQueue", Path: "QueueName", ResourceType: "AWS::SQS::Queue", Source: "{{resolve:secretsmanager:my-secret:SecretString:password}}",
			Status: model.FingerprintChanged, Effect: model.EffectReferenceKept, Remedy: model.RemedyChangeReference},
	}
	md := DiffMarkdown(DiffReport{Diff: model.Diff{Stacks: []model.StackDiff{{Stack: "StackA", Region: "us-east-1", SecretValues: vals}}}}, Unlimited)
	for _, want := range []string{
		"> ⚠️ **2 changed secret values will NOT be applied by a deploy:**",
		"`SecretRefParam`.`Value` · `{{resolve:secretsmanager:my-secret:SecretString:password}}` · (secret) → (secret) · **changed** — ⚠️ **a deploy will NOT apply it** (cdkd compares the reference text, which is unchanged); to apply it, run `cdkd drift StackA --revert`, which pushes the referenced value (a re-deploy does not)",
		"`SecretNamedQueue`.`QueueName` · `{{resolve:secretsmanager:my-secret:SecretString:password}}` · (secret) → (secret) · **changed** — ⚠️ **a deploy will NOT apply it** (cdkd compares the reference text, which is unchanged); to apply it, change the reference's text",
		"`cdkd drift --revert`, `cdkd deploy --replace` and `--recreate-via-cc-api` do not apply it",
	} {
		assert.Assert(t, is.Contains(md, want), md)
	}
	assert.Assert(t, !strings.Contains(md, "will be updated"), md)
}
