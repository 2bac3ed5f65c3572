package reporters

import (
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
	case model.EffectReplaceIfDiffers:
		return "cdkd reads AWS first and replaces the resource if it differs (the destructive policy applies)"
	case model.EffectNotApplied:
		return "⚠️ **cdkd will NOT apply this value**"
	case model.EffectHandlerRuns:
		return "its handler runs on every deploy"
	}
	return Text(string(v.Effect))
}

// recreateAdvice tells how to apply a value cdkd will not apply.
func recreateAdvice(v model.SecretValue) string {
	id := Code("--recreate-via-cc-api " + shortName(v.LogicalID))
	alt := Code("--recreate-via-sdk-provider " + shortName(v.LogicalID))
	s := "to apply it, deploy with " + id + " (or " + alt + "), which recreates the resource"
	if v.Stateful {
		s += "; " + nameCode(v.ResourceType) + " is stateful, so cdkd also needs " + Code("--force-stateful-recreation") + ", which **destroys its data**"
	}
	return s
}

// secretValues lists a stack's secret positions: (secret) → (secret) and
// the fingerprint's verdict, never a value.
func (x *diffWriter) secretValues(vals []model.SecretValue) {
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
				x.w.Write(": ", recreateAdvice(v))
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
				lines = append(lines, "> - "+nameCode(path)+" "+secretPositionName(v)+" ("+nameCode(v.Source)+"): "+recreateAdvice(v)+"\n")
			}
		}
	})
	if len(lines) == 0 {
		return
	}
	x.w.Block()
	x.w.Write("> ⚠️ **", countOf(len(lines), "changed secret value", "changed secret values"), " will NOT be applied:** the property is create-only and AWS never reports it, so cdkd keeps the resource.\n")
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
