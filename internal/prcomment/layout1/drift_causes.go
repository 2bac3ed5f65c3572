package layout1

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// causeText is a cause's heading and what to do about it.
func causeText(c model.NotComparedCause, exitCode int) (head, todo string) {
	switch c {
	case model.CauseRefused:
		return "🚫 **Refused**", "cdkd refused to resolve a dynamic reference it cannot attribute to a region, so the resource's secret-bearing properties were not compared. **To fix:** spell the reference as a full ARN, which names its region, then re-run."
	case model.CauseReadFailed:
		return "❗ **Read failed**", "reading the resource (or comparing it) failed, so none of its properties were compared. **To fix:** grant the read permission cdkd needs (the error is in cdkd's log), or re-run if it was a throttle."
	case model.CauseUnresolvedToken:
		return "🔒 **Unresolved token**", "these resources read a `{{resolve:ssm-secure:...}}` reference, which cdkd never resolves, so the properties holding one are never compared. Permanent: it does not make the check incomplete. " +
			"What a `--revert` does depends on where the token sits, said per resource."
	case model.CauseUnreported:
		switch exitCode {
		case 2:
			return "❔ **Cause not reported**", "cdkd did not say why. It exited 2, so at least one comparison in this run was refused or failed: treat these as could-not-check."
		case 0:
			return "❔ **Cause not reported**", "cdkd did not say why, and its state record holds no ssm-secure token. cdkd exited 0, which it does only when nothing was refused and no read failed."
		case model.ExitCodeUnknown:
			return "❔ **Cause not reported**", "cdkd did not say why, and cdkd's exit code is unknown (a saved cdkd JSON read without " + Code("cdkd-exit-code") + "), so nothing tells a refusal from a permanent ssm-secure token: treat these as could-not-check."
		}
		return "❔ **Cause not reported**", "cdkd did not say why, and its log names no reason. It exited " + strconv.Itoa(exitCode) +
			" because something drifted, and drift outranks a refused or failed comparison, so the exit code says nothing about these: treat them as could-not-check."
	}
	return "❔ **Cause " + Code(shortName(string(c))) + "**", "a cause this version of cdkd-action does not know, shown as cdkd reported it. It is not counted as checked."
}

// tokenCaseText says the one case of an ssm-secure token that applies
// (model.DecideTokenCase), never both: cdkd 0.284.40's own line states both
// at once.
func tokenCaseText(c *model.TokenCase) string {
	if c == nil {
		return ""
	}
	from := "cdkd's state record"
	if c.Basis == model.TokenFromTemplate {
		from = "the template"
	}
	switch c.Placement {
	case model.TokenWhole:
		return "the token is the whole value of " + codeList(c.Paths, listMax) + " (" + from + "), so a `--revert` leaves the live value there unchanged."
	case model.TokenEmbedded:
		return "the token is embedded in a longer string at " + codeList(c.Paths, listMax) + " (" + from + "), so a `--revert` writes that string back with the token literal and **overwrites** the resolved value AWS holds there. " +
			"**To fix:** use a `secretsmanager` or plain `ssm` reference in the composed string, or make the token the property's whole value."
	}
	return "whether the token is its property's whole value (a `--revert` leaves it unchanged) or embedded in a longer string (a `--revert` overwrites the value AWS holds) is **unknown**: " +
		Text(c.Why) + "."
}

func basisText(b model.CauseBasis) string {
	switch b {
	case model.BasisLog:
		return "cause from cdkd's log"
	case model.BasisState:
		return "cdkd reported no cause; its state record holds an ssm-secure token"
	case model.BasisStateAndExit:
		return "cdkd reported no cause; its state record holds no ssm-secure token and cdkd exited 2, so it is counted as refused"
	case model.BasisExitCode:
		return "cdkd reported no cause and the state record could not be read; inferred from cdkd's exit code"
	}
	return ""
}

func (x *driftWriter) notCompared(s *model.StackDrift, v model.StackVerdict) {
	if len(s.NotCompared) == 0 {
		return
	}
	groups := map[model.NotComparedCause][]model.NotCompared{}
	var causes []model.NotComparedCause
	for _, nc := range s.NotCompared {
		if _, ok := groups[nc.Cause]; !ok {
			causes = append(causes, nc.Cause)
		}
		groups[nc.Cause] = append(groups[nc.Cause], nc)
	}
	slices.SortFunc(causes, func(a, b model.NotComparedCause) int {
		return cmp.Or(model.CauseRank(a)-model.CauseRank(b), cmp.Compare(a, b))
	})
	x.w.Block()
	x.w.Write("**⚠️ Not fully compared (", strconv.Itoa(v.NotCompared), ")**\n")
	for _, c := range causes {
		if x.w.Over() {
			return
		}
		list := groups[c]
		head, todo := causeText(c, x.r.Verdict.ExitCode)
		if x.rung.namesOnly {
			names := make([]string, len(list))
			for i, nc := range list {
				names[i] = nc.LogicalID
			}
			x.w.Write("- ", head, " (", strconv.Itoa(len(list)), "): ", codeList(names, x.listLimit()), "\n")
			continue
		}
		x.w.Write("- ", head, " (", strconv.Itoa(len(list)), "): ", todo, "\n")
		for _, nc := range list {
			if x.w.Over() {
				return
			}
			x.w.Write("  - ", nameCode(nc.LogicalID), " · ", nameCode(nc.Type))
			if b := basisText(nc.CauseBasis); b != "" && x.rung.causeDetails {
				x.w.Write(" · ", b)
			}
			x.w.WriteString("\n")
			if t := tokenCaseText(nc.Token); t != "" {
				x.w.Write("    - ", t, "\n")
			}
			if nc.Reason != "" && x.rung.causeDetails {
				reason, _ := cutRunes(nc.Reason, 600)
				x.w.Write("    - cdkd: ", Text(reason), "\n")
			}
		}
	}
}

func (x *driftWriter) possiblyDeleted(rs []model.Resource) {
	if len(rs) == 0 {
		return
	}
	x.w.Block()
	x.w.Write("**⚠️ Not checked (possibly deleted) (", strconv.Itoa(len(rs)), ")** · cdkd reads these types' current state, yet reported them as unsupported: the resource was most likely deleted out of band (cdkd reports a deleted resource this way, not as drift). **To fix:** check that it exists; re-deploy to recreate it.\n")
	writeList(x.w, len(rs), x.listLimit(), "", func(i int) {
		x.w.Write("- ", nameCode(rs[i].LogicalID), " · ", nameCode(rs[i].Type), "\n")
	})
}

// typeCounts lists resources by type with counts: "`AWS::X::Y` ×2".
func (x *driftWriter) typeCounts(head, what string, rs []model.Resource, why string) {
	if len(rs) == 0 {
		return
	}
	counts := map[string]int{}
	var types []string
	for _, r := range rs {
		if counts[r.Type] == 0 {
			types = append(types, r.Type)
		}
		counts[r.Type]++
	}
	slices.Sort(types)
	limit := len(types)
	if l := x.listLimit(); l >= 0 {
		limit = min(limit, l)
	}
	parts := make([]string, 0, limit+1)
	for _, t := range types[:limit] {
		parts = append(parts, nameCode(t)+" ×"+strconv.Itoa(counts[t]))
	}
	if limit < len(types) {
		parts = append(parts, "and "+strconv.Itoa(len(types)-limit)+" more types")
	}
	x.w.Block()
	x.w.Write(head, " ", strconv.Itoa(len(rs)), " ", what, " — ", strings.Join(parts, ", "), ". ", why, "\n")
}
