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
		{LogicalID: "Dir", Path: "Password", ResourceType: "AWS::RDS::DBCluster", Source: "NoEcho parameter AdPassword", Status: model.FingerprintChanged, Effect: model.EffectNotApplied, Stateful: true},
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
		"- `Dir`.`Password` · `NoEcho parameter AdPassword` · (secret) → (secret) · **changed** — ⚠️ **cdkd will NOT apply this value**: to apply it, deploy with `--recreate-via-cc-api Dir` (or `--recreate-via-sdk-provider Dir`), which recreates the resource; `AWS::RDS::DBCluster` is stateful, so cdkd also needs `--force-stateful-recreation`, which **destroys its data**",
		"- `Fn`.`Environment.Variables.TOKEN` · `{{resolve:secretsmanager:tok}}` · (secret) · unchanged",
		"- output `Pw` · `NoEcho parameter DbPassword` · (secret) · unknown (no fingerprint recorded yet)",
		"> ⚠️ **1 changed secret value will NOT be applied:**",
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
