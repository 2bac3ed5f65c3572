package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DriftStatus is what a drift check concluded. The four values are the
// action's output drift-status; they never blur: "could not check" is
// neither drift nor clean.
type DriftStatus string

const (
	// DriftClean: everything compared matched. A resource left uncompared
	// only for a permanent reason ({{resolve:ssm-secure:...}}) still counts
	// as clean, with a note.
	DriftClean DriftStatus = "clean"
	// DriftDrifted: at least one resource drifted. It outranks incomplete.
	DriftDrifted DriftStatus = "drifted"
	// DriftIncomplete: nothing drifted, but something was refused, its read
	// failed, or it was not checked although cdkd can read its type; or
	// cdkd's report lists no stack at all. Resources cdkd never checks by
	// design (Custom::*, "drift unknown") alone do not make a run incomplete.
	DriftIncomplete DriftStatus = "incomplete"
	// DriftError: cdkd did not produce a report (a crash: exit 1 with no JSON).
	DriftError DriftStatus = "error"
)

// CauseBasis says what cdkd-action based a cause on when cdkd reported none
// (cdkd 0.284 reports no cause, and prints a refused reference and an
// ssm-secure one identically).
type CauseBasis string

const (
	// BasisReported: cdkd reported the cause itself.
	BasisReported CauseBasis = ""
	// BasisLog: cdkd's log named the resource and said why (its per-resource
	// line); it outranks every inference.
	BasisLog CauseBasis = "log"
	// BasisState: the resource's state record holds an ssm-secure token.
	BasisState CauseBasis = "state"
	// BasisStateAndExit: the state record holds no ssm-secure token and
	// cdkd exited 2, so the resource is counted as refused.
	BasisStateAndExit CauseBasis = "stateAndExitCode"
	// BasisExitCode: the state record could not be read; the cause was
	// inferred from cdkd's exit code alone.
	BasisExitCode CauseBasis = "exitCode"
)

// SSMSecurePrefix starts the one {{resolve:...}} spelling cdkd never
// resolves. A state record holding it marks a resource cdkd cannot compare
// there, permanently.
const SSMSecurePrefix = "{{resolve:ssm-secure:"

// ReadsState reports whether the cdkd in use reads a resource type's
// current state with its own SDK provider, so that "unsupported" for it
// means "not read as expected" (most likely deleted out of band). The list
// is cdkd's, per version: the cdkd edge supplies it (cdkd.ReadsCurrentState);
// nil knows no such type.
type ReadsState func(resourceType string) bool

// Coverage counts what a comparison covered, in the seeds' words:
// "X of Y resources fully checked (Z only partially compared), N unsupported".
type Coverage struct {
	// Attempted is Y: resources a comparison was attempted for (drifted,
	// clean or not fully compared), each counted once.
	Attempted int `json:"attempted"`
	// Full is X: attempted and fully compared.
	Full int `json:"fullyChecked"`
	// Partial is Z: attempted but not fully compared (a drifted resource
	// with unresolved references included).
	Partial int `json:"partiallyCompared"`
	// Unsupported is N: "drift unknown", nothing read (possibly deleted
	// resources included).
	Unsupported int `json:"unsupported"`
	// Skipped are custom resources, never drift-checked.
	Skipped int `json:"skipped"`
}

// NothingCompared is a stack in which no comparison happened at all: it
// never gets a reassuring ✓.
func (c Coverage) NothingCompared() bool { return c.Attempted == 0 }

// String is the coverage sentence. When nothing was compared it reads
// "0 of 2 resources checked (1 unsupported, 1 skipped)".
func (c Coverage) String() string {
	if c.NothingCompared() {
		total := c.Unsupported + c.Skipped
		var parts []string
		if c.Unsupported > 0 {
			parts = append(parts, strconv.Itoa(c.Unsupported)+" unsupported")
		}
		if c.Skipped > 0 {
			parts = append(parts, strconv.Itoa(c.Skipped)+" skipped")
		}
		s := "0 of " + plural(total, "resource") + " checked"
		if len(parts) > 0 {
			s += " (" + strings.Join(parts, ", ") + ")"
		}
		return s
	}
	s := fmt.Sprintf("%d of %s fully checked", c.Full, plural(c.Attempted, "resource"))
	if c.Partial > 0 {
		s += fmt.Sprintf(" (%d only partially compared)", c.Partial)
	}
	if c.Unsupported > 0 {
		s += fmt.Sprintf(", %d unsupported", c.Unsupported)
	}
	if c.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", c.Skipped)
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// StackVerdict is one stack's classification.
type StackVerdict struct {
	Stack    string      `json:"stack"`
	Region   string      `json:"region"`
	Status   DriftStatus `json:"status"`
	Coverage Coverage    `json:"coverage"`
	Drifted  int         `json:"drifted"`
	// NotCompared is the number of resources not fully compared.
	NotCompared int `json:"notCompared"`
	// Unchecked counts the resources that make the stack incomplete: not
	// compared for a reason someone can act on, or possibly deleted.
	Unchecked int `json:"unchecked"`
	// PossiblyDeleted are unsupported resources of a type cdkd reads: not
	// checked, probably deleted out of band.
	PossiblyDeleted []Resource `json:"possiblyDeleted,omitempty"`
	// Reasons say, one phrase each, why the stack is incomplete.
	Reasons []string `json:"reasons,omitempty"`
	// Notes are facts that do not change the status (a permanent
	// unresolved token, a cause cdkd did not report).
	Notes []string `json:"notes,omitempty"`
}

// HiddenGroup is the name of cdkd drift's group of NoEcho positions it
// hides (Groups); the name is cdkd's.
const HiddenGroup = "masked"

// ClassifyStack classifies one stack of a detection run (no --accept or
// --revert). exitCode is cdkd's: a cause cdkd did not report counts as a
// reason to be incomplete only when cdkd exited 2. An unsupported resource
// of a type reads says cdkd reads is counted as possibly deleted.
func ClassifyStack(s StackDrift, exitCode int, reads ReadsState) StackVerdict {
	v := StackVerdict{Stack: s.Stack, Region: s.Region, Drifted: len(s.Drifted)}
	partial := map[string]bool{}
	attempted := map[string]bool{}
	for _, d := range s.Drifted {
		attempted[d.LogicalID] = true
		if d.ReferencesUnresolved {
			partial[d.LogicalID] = true
		}
	}
	for _, c := range s.Clean {
		attempted[c.LogicalID] = true
	}
	counts := map[NotComparedCause]int{}
	for _, nc := range s.NotCompared {
		attempted[nc.LogicalID] = true
		partial[nc.LogicalID] = true
		counts[nc.Cause]++
	}
	// cdkd reports a hidden NoEcho position in a group of its own and
	// compares neither value there (seed 000): its resource is not fully
	// checked, though the position changes no status.
	hidden := map[string]bool{}
	for _, g := range s.Groups {
		if g.Name != HiddenGroup {
			continue
		}
		for _, e := range g.Entries {
			attempted[e.LogicalID], partial[e.LogicalID], hidden[e.LogicalID] = true, true, true
		}
	}
	if n := len(hidden); n > 0 {
		v.Notes = append(v.Notes, plural(n, "resource")+" with a NoEcho position cdkd hides, which cdkd does not compare (it prints neither the stored nor the live value)")
	}
	for _, u := range s.NotSupported {
		if reads != nil && reads(u.Type) {
			v.PossiblyDeleted = append(v.PossiblyDeleted, u)
		}
	}
	v.Coverage = Coverage{
		Attempted:   len(attempted),
		Partial:     len(partial),
		Full:        len(attempted) - len(partial),
		Unsupported: len(s.NotSupported),
		Skipped:     len(s.Skipped),
	}
	v.NotCompared = len(partial)

	for _, cause := range sortedCauses(counts) {
		n := counts[cause]
		switch cause {
		case CauseRefused:
			v.Unchecked += n
			v.Reasons = append(v.Reasons, plural(n, "resource")+" refused")
		case CauseReadFailed:
			v.Unchecked += n
			v.Reasons = append(v.Reasons, plural(n, "resource")+" whose read failed")
		case CauseUnresolvedToken:
			v.Notes = append(v.Notes, plural(n, "resource")+" with an ssm-secure reference cdkd never resolves (permanent)")
		case CauseUnreported:
			switch exitCode {
			case 2:
				v.Unchecked += n
				v.Reasons = append(v.Reasons, plural(n, "resource")+" not compared for a reason cdkd did not report (it exited 2)")
			case ExitCodeUnknown:
				v.Unchecked += n
				v.Reasons = append(v.Reasons, plural(n, "resource")+" not compared for a reason cdkd did not report (cdkd's exit code is unknown)")
			default:
				v.Notes = append(v.Notes, plural(n, "resource")+" not compared for a reason cdkd did not report")
			}
		default:
			v.Unchecked += n
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s not compared (cause %q, unknown to cdkd-action)", plural(n, "resource"), string(cause)))
		}
	}
	if n := len(v.PossiblyDeleted); n > 0 {
		v.Unchecked += n
		v.Reasons = append(v.Reasons, plural(n, "resource")+" not checked (possibly deleted)")
	}
	switch {
	case v.Drifted > 0:
		v.Status = DriftDrifted
	case len(v.Reasons) > 0:
		v.Status = DriftIncomplete
	default:
		v.Status = DriftClean
	}
	return v
}

// sortedCauses orders causes by how much they matter to a reader:
// actionable first, then permanent, then unknown, then unreported.
func sortedCauses(counts map[NotComparedCause]int) []NotComparedCause {
	out := make([]NotComparedCause, 0, len(counts))
	for c := range counts {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b NotComparedCause) int {
		if ra, rb := CauseRank(a), CauseRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(string(a), string(b))
	})
	return out
}

// CauseRank orders not-compared causes for reports: refused, readFailed,
// unknown causes, unreported, unresolvedToken.
func CauseRank(c NotComparedCause) int {
	switch c {
	case CauseRefused:
		return 0
	case CauseReadFailed:
		return 1
	case CauseUnreported:
		return 3
	case CauseUnresolvedToken:
		return 4
	}
	return 2
}

// KnownCause reports whether cdkd-action knows what the cause means.
func KnownCause(c NotComparedCause) bool {
	switch c {
	case CauseRefused, CauseReadFailed, CauseUnresolvedToken, CauseUnreported:
		return true
	}
	return false
}

// ExitCodeUnknown stands for cdkd's exit code when no cdkd run gave it: a
// saved `cdkd drift --json` read without cdkd-exit-code, whose resources
// cdkd did not all compare. cdkd 0.284's JSON names no cause, and only the
// exit code told a refusal (2) from a permanent ssm-secure token (0), so
// such a resource is could-not-check and the run incomplete.
const ExitCodeUnknown = -2

// RunVerdict is a whole drift check's classification.
type RunVerdict struct {
	Status DriftStatus `json:"status"`
	// ExitCode is cdkd's exit code (-1 when it did not run to the end,
	// ExitCodeUnknown when no run gave it).
	ExitCode int            `json:"exitCode"`
	Stacks   []StackVerdict `json:"stacks"`
	// Drifted and NotCompared are resource counts over every stack;
	// NotCompared includes resources not checked because possibly deleted.
	Drifted     int `json:"driftedCount"`
	NotCompared int `json:"notComparedCount"`
	// Unchecked counts the resources that make the run incomplete.
	Unchecked int `json:"uncheckedCount"`
	// Reason explains an error, or a status that comes from cdkd's exit code
	// rather than from any one resource.
	Reason string `json:"reason,omitempty"`
}

// ClassifyRun classifies a detection run, following the seeds' exit-code
// table: drift (exit 1 with a report) outranks an incomplete comparison
// (exit 2), exit 0 is clean unless a resource says otherwise, and a run
// without a report (d == nil: exit 1 with no JSON) is an error, never drift
// and never clean. A run that checked no stack is incomplete. A run whose
// only unchecked resources are ones cdkd never checks by design is clean,
// whatever it compared (the coverage line counts them). Where
// the report and the exit code disagree, the more cautious reading wins.
func ClassifyRun(d *Drift, exitCode int, reads ReadsState) RunVerdict {
	v := RunVerdict{ExitCode: exitCode, Stacks: []StackVerdict{}}
	if d == nil {
		v.Status = DriftError
		v.Reason = "cdkd printed no drift report"
		return v
	}
	incomplete := false
	for _, s := range d.Stacks {
		sv := ClassifyStack(s, exitCode, reads)
		v.Drifted += sv.Drifted
		v.NotCompared += sv.NotCompared + len(sv.PossiblyDeleted)
		v.Unchecked += sv.Unchecked
		if sv.Status == DriftIncomplete {
			incomplete = true
		}
		v.Stacks = append(v.Stacks, sv)
	}
	switch {
	case exitCode != 0 && exitCode != 1 && exitCode != 2 && exitCode != ExitCodeUnknown:
		v.Status = DriftError
		v.Reason = fmt.Sprintf("cdkd exited %d, which cdkd drift does not use for a report", exitCode)
	case v.Drifted > 0:
		v.Status = DriftDrifted
	case exitCode == 1:
		v.Status = DriftError
		v.Reason = "cdkd exited 1 (drift or a crash) but its report lists no drifted resource"
	case incomplete:
		v.Status = DriftIncomplete
	case exitCode == 2:
		v.Status = DriftIncomplete
		v.Reason = "cdkd exited 2: at least one comparison was refused or failed, though no resource in its report says which"
	case len(v.Stacks) == 0:
		v.Status = DriftIncomplete
		v.Reason = ReasonNoStack
	default:
		// What cdkd never checks by design (Custom::*, types without a read
		// handler) is no uncertainty: the seed reports it "without any
		// uncertainty claim", and cdkd's exit 0 stays a success. A run that
		// compared nothing is clean, and the coverage line says so.
		v.Status = DriftClean
	}
	if v.Status == DriftIncomplete && v.Reason == "" && exitCode == ExitCodeUnknown && unreported(d) {
		v.Reason = ReasonExitCodeUnknown
	}
	if v.Status == DriftIncomplete && v.Reason == "" && nothingCompared(v.Stacks) {
		// Possibly deleted resources alone: the stacks say why, and this
		// says that nothing else was compared either.
		v.Reason = ReasonNothingCompared
	}
	return v
}

// The reasons a run is incomplete although no resource was refused: no
// clean bill of health comes from a check that compared nothing.
const (
	// ReasonNoStack: cdkd's report lists no stack at all (exit 0 with []),
	// which a wrong stack name, bucket, prefix or region also gives.
	ReasonNoStack = "cdkd checked no stack — check stacks/all, state-bucket, state-prefix and stack-region"
	// ReasonNothingCompared: every stack's resources were possibly deleted,
	// unsupported or skipped, so not one comparison happened.
	ReasonNothingCompared = "nothing could be compared: in no stack did cdkd compare a single resource (all possibly deleted, unsupported or skipped)"
)

// ReasonExitCodeUnknown: a saved cdkd JSON whose not-compared resources
// name no cause, read without the exit code of the run that wrote it.
const ReasonExitCodeUnknown = "cdkd's exit code is unknown: the saved cdkd drift JSON names no cause for a resource cdkd did not compare, and only the exit code of the run that wrote it (cdkd-exit-code) tells a refusal from a permanent ssm-secure token"

// unreported reports a not-compared resource whose cause nobody decided.
func unreported(d *Drift) bool {
	for _, s := range d.Stacks {
		for _, nc := range s.NotCompared {
			if nc.Cause == CauseUnreported {
				return true
			}
		}
	}
	return false
}

// nothingCompared reports stacks in none of which a comparison happened;
// true for no stacks.
func nothingCompared(stacks []StackVerdict) bool {
	for _, s := range stacks {
		if !s.Coverage.NothingCompared() {
			return false
		}
	}
	return true
}

// ErrorVerdict is the verdict of a run that produced no report.
func ErrorVerdict(exitCode int, reason string) RunVerdict {
	return RunVerdict{Status: DriftError, ExitCode: exitCode, Stacks: []StackVerdict{}, Reason: reason}
}
