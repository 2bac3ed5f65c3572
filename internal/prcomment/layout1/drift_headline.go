package layout1

import (
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// headline is the verdict in one paragraph, first: a reader who reads
// nothing else still learns whether this is drift, "could not check", or
// clean.
func (x *driftWriter) headline() {
	v := x.r.Verdict
	x.w.Block()
	switch {
	case v.Status == model.DriftDrifted:
		drifting := 0
		for _, s := range v.Stacks {
			if s.Drifted > 0 {
				drifting++
			}
		}
		x.w.Write("🔴 **Drift detected:** ", countOf(v.Drifted, "resource", "resources"), " drifted in ",
			strconv.Itoa(drifting), " of ", countOf(len(v.Stacks), "stack", "stacks"), ".")
		if v.NotCompared > 0 {
			x.w.Write(" ", countOf(v.NotCompared, "resource was", "resources were"), " not fully compared.")
		}
		x.w.WriteString("\n")
	case v.Status == model.DriftIncomplete && v.Unchecked == 0 && NothingCompared(v):
		// Nothing was compared: no "among the resources that were compared".
		reason := v.Reason
		if reason == "" {
			reason = "nothing could be compared"
		}
		x.w.Write("⚠️ **Nothing checked:** ", Text(reason), ". This is not a clean result: it says nothing about drift.\n")
	case v.Status == model.DriftIncomplete:
		x.w.WriteString("⚠️ **Could not check everything:** nothing drifted among the resources that were compared, but ")
		switch {
		case v.Unchecked > 0 && v.Reason == model.ReasonExitCodeUnknown:
			// Refused or permanent: without the exit code nobody knows.
			x.w.Write(countOf(v.Unchecked, "resource", "resources"), " could not be checked.")
		case v.Unchecked > 0:
			x.w.Write(countOf(v.Unchecked, "resource", "resources"), " could not be checked, for a reason you can act on.")
		default:
			x.w.WriteString("cdkd says a comparison was refused or failed.")
		}
		x.w.WriteString(" This is not a clean result.\n")
		if v.Reason != "" {
			x.w.Block()
			x.w.Write(Text(v.Reason), ".\n")
		}
	case v.Status == model.DriftError:
		reason := x.r.Error
		if reason == "" {
			reason = v.Reason
		}
		reason, _ = cutRunes(reason, reasonMax)
		x.w.Write("❌ **Drift could not be checked:** ", Text(reason), "\n")
		x.w.Block()
		x.w.WriteString("This is neither drift nor a clean result: the check did not complete.\n")
	default:
		nothing := 0
		for _, s := range v.Stacks {
			if s.Coverage.NothingCompared() {
				nothing++
			}
		}
		switch {
		case len(v.Stacks) == 0:
			x.w.WriteString("⚠️ **No drift detected, but no stack was checked:** cdkd's report lists no stack.\n")
		case NothingCompared(v):
			x.w.WriteString("⚠️ **No drift detected, but nothing was compared:** cdkd never drift-checks these resources by design (custom resources, and types it cannot read back yet). " +
				"That is no uncertainty and not a failure (cdkd exits 0), but it is no evidence of \"no drift\" either; the coverage line counts them.\n")
		case nothing > 0:
			x.w.Write("✅ **No drift** in what was compared; in ", countOf(nothing, "stack", "stacks"), " nothing could be compared.\n")
		default:
			x.w.WriteString("✅ **No drift:** every compared resource matches cdkd's state.\n")
		}
	}
}
