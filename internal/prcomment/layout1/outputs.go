package layout1

import (
	"strconv"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The step outputs a result sets: its counts, for a workflow to branch on.
// The action's other outputs (URLs, the digest, the failure reason) are
// the wiring's; internal/app lists every output against action.yml.
const (
	OutputHasChanges      = "has-changes"
	OutputToCreate        = "to-create"
	OutputToUpdate        = "to-update"
	OutputToDelete        = "to-delete"
	OutputToReplace       = "to-replace"
	OutputOutputsChanged  = "outputs-changed"
	OutputSecurityChanges = "security-changes"
	OutputBroadening      = "broadening"

	OutputDriftStatus      = "drift-status"
	OutputDriftedCount     = "drifted-count"
	OutputNotComparedCount = "not-compared-count"
)

// DiffOutputs are the counting outputs of a diff: its totals, whether
// anything changes, and its security changes (how many, and whether one
// broadens access).
func DiffOutputs(totals model.Counts, hasChanges bool, sec model.SecurityTally) map[string]string {
	broadening := sec.Broadening > 0
	return map[string]string{
		OutputSecurityChanges: strconv.Itoa(sec.Rows),
		OutputBroadening:      strconv.FormatBool(broadening),
		OutputHasChanges:      strconv.FormatBool(hasChanges),
		OutputToCreate:        strconv.Itoa(totals.Create),
		OutputToUpdate:        strconv.Itoa(totals.Update),
		OutputToReplace:       strconv.Itoa(totals.Replace),
		OutputToDelete:        strconv.Itoa(totals.Delete),
		OutputOutputsChanged:  strconv.Itoa(totals.Outputs()),
	}
}

// DriftOutputs are drift-status (the detection result) and the counts.
// A run that ends in an error — cdkd's report was unusable, or the
// detection after a resolution failed — is error, and its counts are
// empty: no complete check vouches for them.
func DriftOutputs(rep DriftReport) map[string]string {
	if rep.Verdict.Status == model.DriftError || rep.FinalStatus() == model.DriftError {
		return map[string]string{OutputDriftStatus: string(model.DriftError), OutputDriftedCount: "", OutputNotComparedCount: ""}
	}
	return map[string]string{
		OutputDriftStatus:      string(rep.Verdict.Status),
		OutputDriftedCount:     strconv.Itoa(rep.Verdict.Drifted),
		OutputNotComparedCount: strconv.Itoa(rep.Verdict.NotCompared),
	}
}
