package layout1

import (
	"fmt"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// secretMax is how many secret positions a stack lists once the budget is
// tight (levelResources and beyond list changed ones only).
const secretMax = 50

// SecretCountsText is the secret part of a headline: "1 secret value
// changed", or "" when none did.
func SecretCountsText(c model.SecretCounts) string {
	if c.Changed == 0 {
		return ""
	}
	return countOf(c.Changed, "secret value changed", "secret values changed")
}

// ChangeTitle is a check run's title: the counts, and the secret values
// that changed when cdkd's diff cannot show them.
func ChangeTitle(d model.Diff) string {
	t := d.Totals()
	s := SecretCountsText(d.SecretCounts())
	switch {
	case s == "":
		return CountsText(t)
	case !t.Any():
		return s
	}
	return CountsText(t) + " · " + s
}

// secretPositionName is "`Db`.`MasterUserPassword`" or "output `Pw`".
func secretPositionName(v model.SecretValue) string {
	if v.Output != "" {
		name := "output " + nameCode(v.Output)
		if v.Path != "" {
			name += "." + nameCode(v.Path)
		}
		return name
	}
	return nameCode(v.LogicalID) + "." + nameCode(v.Path)
}

// effectText is what the deploy does with a changed value.
func effectText(v model.SecretValue) string {
	switch v.Effect {
	case model.EffectUpdated:
		return "will be updated"
	case model.EffectCreated:
		return "applied: the resource is created in this deploy"
	case model.EffectReplaced:
		return "applied: the resource is replaced in this deploy"
	case model.EffectInCdkdDiff:
		return "cdkd's diff shows this change"
	case model.EffectReplaceIfDiffers:
		return "may replace the resource: cdkd reads AWS first and replaces it only if it differs; no approval covers that replacement (cdkd's approval prompt cannot see it and `--yes` approves it)"
	case model.EffectNotApplied:
		return "⚠️ **cdkd will NOT apply this value**: the property is create-only and AWS never reports it, so cdkd keeps the resource"
	case model.EffectReferenceKept:
		return "⚠️ **a deploy will NOT apply it** (cdkd compares the reference text, which is unchanged)"
	case model.EffectReferenceResourceUpdated:
		return "unknown whether the deploy applies it: cdkd updates the resource for another change, and compares the reference text, which is unchanged"
	case model.EffectHandlerRuns:
		return "its handler runs on every deploy"
	case model.EffectUnknown:
		return "unknown: cdkd decides when it reads AWS (the schema table does not know " + nameCode(v.ResourceType) + " " + nameCode(v.Path) + ")"
	}
	return Text(string(v.Effect))
}

// SecretRemedy tells, in Markdown, how to apply a value the deploy leaves
// behind, or says that nothing cdkd does is known to. stack names the
// stack for a command line.
func SecretRemedy(stack string, v model.SecretValue) string {
	return remedy(stack, v, Code, nameCode, func(s string) string { return "**" + s + "**" })
}

// SecretLeftBehind is the log's sentence for a changed value a deploy
// does not apply: where, why, and the remedy, in plain text.
func SecretLeftBehind(stack string, v model.SecretValue) string {
	plain := func(s string) string { return s }
	quote := func(s string) string { return "'" + s + "'" }
	return fmt.Sprintf("%s: the changed secret value at %s.%s (%s) is NOT applied by cdkd deploy: %s; %s.",
		stack, v.LogicalID, v.Path, v.Source, leftBehindWhy(v), remedy(stack, v, quote, plain, plain))
}

func remedy(stack string, v model.SecretValue, code, name, bold func(string) string) string {
	id := shortName(v.LogicalID)
	switch v.Remedy {
	case model.RemedyDriftRevert:
		return "to apply it, run " + code("cdkd drift "+shortName(stack)+" --revert") + ", which pushes the referenced value (a re-deploy does not)"
	case model.RemedyChangeReference:
		s := "to apply it, change the reference's text (pin the new version, for example with " + code(":AWSCURRENT") + " or its version id), which cdkd's diff sees as a change"
		if v.Stateful {
			s += "; for this create-only property that replaces " + name(v.ResourceType) + ", which is stateful"
		}
		return s + "; " + code("cdkd drift --revert") + ", " + code("cdkd deploy --replace") + " and " + code("--recreate-via-cc-api") + " do not apply it"
	case model.RemedyRecreate:
		s := "to apply it, deploy with " + code("--recreate-via-cc-api "+id) + " (or " + code("--recreate-via-sdk-provider "+id) + " for a resource cdkd provisioned through Cloud Control), which recreates the resource"
		if v.Stateful {
			s += "; " + name(v.ResourceType) + " is stateful, so cdkd also needs " + code("--force-stateful-recreation") + ", which " + bold("destroys its data")
		}
		return s
	}
	return "no cdkd command is known to apply it"
}

// secretValues lists a stack's secret positions: (secret) → (secret) and
// the fingerprint's verdict, never a value.
func (x *diffWriter) secretValues(path string, vals []model.SecretValue) {
	if len(vals) == 0 || x.w.Over() {
		return
	}
	changedOnly := x.rung.changedSecretsOnly
	x.w.Block()
	x.w.WriteString("**Secret values** (salted fingerprints; no value is shown)\n")
	shown, hidden := 0, 0
	for _, v := range vals {
		if x.w.Over() {
			return
		}
		if (changedOnly && v.Status != model.FingerprintChanged) || (x.limited && shown == secretMax) {
			hidden++
			continue
		}
		shown++
		x.w.Write("- ", secretPositionName(v), " · ", nameCode(v.Source), " · ")
		switch v.Status {
		case model.FingerprintChanged:
			x.w.Write("(secret) → (secret) · **changed** — ", effectText(v))
			if v.Warns() {
				x.w.Write("; ", SecretRemedy(path, v))
			}
		case model.FingerprintUnchanged:
			x.w.WriteString("(secret) · unchanged")
		default:
			x.w.WriteString("(secret) · unknown")
			if v.Reason != "" {
				x.w.Write(" (", Text(v.Reason), ")")
			}
		}
		x.w.WriteString("\n")
	}
	if hidden > 0 {
		x.w.WriteString(moreItems(hidden))
	}
}

// secretCallout warns, under the headline, of each changed secret value
// the deploy will not apply: the reviewer must act for it to reach AWS.
func (x *diffWriter) secretCallout() {
	var lines []string
	model.Diff{Stacks: x.stacks}.Walk(func(path string, s model.StackDiff) {
		for _, v := range s.SecretValues {
			if v.Warns() {
				lines = append(lines, "> - "+nameCode(path)+" "+secretPositionName(v)+" ("+nameCode(v.Source)+"): "+leftBehindWhy(v)+"; "+SecretRemedy(path, v)+"\n")
			}
		}
	})
	if len(lines) == 0 {
		return
	}
	x.w.Block()
	x.w.Write("> ⚠️ **", countOf(len(lines), "changed secret value", "changed secret values"), " will NOT be applied by a deploy:**\n")
	limit := len(lines)
	if x.limited && x.rung.secretCalloutCap > 0 {
		limit = min(limit, x.rung.secretCalloutCap)
	}
	for i, l := range lines {
		if x.w.Over() {
			return
		}
		if i == limit {
			x.w.Write("> ", moreItems(len(lines)-limit))
			return
		}
		x.w.WriteString(l)
	}
}

// leftBehindWhy says why a deploy leaves a changed value behind.
func leftBehindWhy(v model.SecretValue) string {
	if v.Effect == model.EffectReferenceKept {
		return "cdkd compares the reference text, which is unchanged"
	}
	return "the property is create-only and AWS never reports it, so cdkd keeps the resource"
}

// planLine is the headline's plan with the secret values that changed.
func planLine(totals model.Counts, secrets model.SecretCounts) string {
	s := SecretCountsText(secrets)
	switch {
	case !totals.Any():
		return "**Plan:** no resource or output changes · 🔐 " + s + "\n"
	case s != "":
		return "**Plan:** " + countsPhrase(totals, true) + " · 🔐 " + s + "\n"
	}
	return "**Plan:** " + countsPhrase(totals, true) + "\n"
}

// stackSecretSummary is the stack summary's secret part.
func stackSecretSummary(s *model.StackDiff) string {
	n := 0
	for _, v := range s.SecretValues {
		if v.Status == model.FingerprintChanged {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return " · 🔐 " + countOf(n, "secret changed", "secrets changed")
}
