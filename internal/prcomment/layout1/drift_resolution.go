package layout1

import (
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// stillPathsMax is how many drifted paths a resource still drifted after
// a resolution names.
const stillPathsMax = 5

// resolution renders what --accept or --revert did and what the detection
// after it found.
func (x *driftWriter) resolution() {
	res := x.r.Resolution
	if res == nil {
		return
	}
	x.w.Block()
	flag := "--" + res.Mode
	what := "state ← AWS: cdkd's state takes the live values"
	if res.Mode == "revert" {
		what = "AWS ← state: the live resources take cdkd's state values"
	}
	x.w.Write("**Resolution:** ", Code("cdkd drift "+flag+" -y"), " (", what, ")\n")
	x.w.Block()
	switch {
	case res.Error != "":
		reason, _ := cutRunes(res.Error, reasonMax)
		x.w.Write("❌ **", Text(res.Mode), " failed:** ", Text(reason), "\n")
	case len(res.Failed) > 0:
		x.w.Write("❌ **", Text(res.Mode), " partly failed:** ", countOf(len(res.Failed), "resource", "resources"), " not resolved (cdkd exited 2).\n")
	case res.Refused() > 0:
		x.w.Write("🚫 **", Text(res.Mode), " refused** for ", countOf(res.Refused(), "resource", "resources"), ": a revert would overwrite a live value with a `{{resolve:ssm-secure:…}}` token literal, or nothing rules that out.\n")
	}
	x.outcomes(res)
	x.planWarnings(res.Warnings)
	if len(res.Summary) > 0 && x.rung.details {
		x.w.Block()
		for _, l := range res.Summary {
			l, _ = cutRunes(l, 500)
			x.w.Write("> ", Text(l), "\n")
		}
	}
	x.resolutionText("cdkd's --dry-run plan", res.PlanText)
	x.resolutionText("cdkd's output", res.Output)
	x.w.Block()
	x.w.WriteString("The detection result below is from before the resolution: with `--accept` or `--revert`, cdkd's exit code 0 does not mean everything was compared.\n")
	x.w.Block()
	switch {
	case res.AfterError != "":
		reason, _ := cutRunes(res.AfterError, reasonMax)
		x.w.Write("⚠️ **After the resolution, drift could not be checked again:** ", Text(reason), "\n")
	case res.After == nil:
	case res.After.Status == model.DriftDrifted:
		reported := map[string]bool{} // listed above under "cdkd said reverted"
		for _, o := range res.Outcomes {
			reported[o.Name()] = o.Outcome == model.ResolutionReverted
		}
		var still []string
		n := 0
		for _, s := range res.AfterDrift.Stacks {
			for _, d := range s.Drifted {
				entry := s.Stack + "/" + d.LogicalID
				if reported[entry] {
					n++
					continue
				}
				// The names are capped by the ladder, each one's paths here:
				// a resource can have hundreds.
				var paths []string
				for _, c := range d.Changes[:min(len(d.Changes), stillPathsMax)] {
					paths = append(paths, c.Path)
				}
				if more := len(d.Changes) - len(paths); more > 0 {
					paths = append(paths, "and "+strconv.Itoa(more)+" more")
				}
				if len(paths) > 0 {
					entry += " (" + strings.Join(paths, ", ") + ")"
				}
				still = append(still, entry)
			}
		}
		x.w.Write("🔴 **Still drifted after the ", Text(res.Mode), ":** ")
		switch {
		case len(still) == 0:
			x.w.Write("the ", countOf(n, "resource", "resources"), " cdkd said it reverted (above).")
		case n > 0:
			x.w.Write(codeList(still, x.listLimit()), ", and the ", countOf(n, "resource", "resources"), " cdkd said it reverted (above).")
		default:
			x.w.Write(codeList(still, x.listLimit()), ".")
		}
		x.w.WriteString("\n")
	default:
		x.w.Write("After the resolution, ", Code("cdkd drift"), " reports: ", statusPhrase(res.After.Status), ".\n")
	}
}
