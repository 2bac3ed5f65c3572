package model

import (
	"encoding/json"
	"fmt"
)

// SchemaVersion is the version of the report JSON contract (DiffResult,
// DriftResult, DeployResult as written to the report-json file). It changes
// when a field is removed or changes meaning; adding a field does not.
const SchemaVersion = 1

// Kind names what a result reports; it is the report JSON's "kind".
type Kind string

const (
	KindDiff   Kind = "diff"
	KindDrift  Kind = "drift"
	KindDeploy Kind = "deploy"
)

// Header is what every report JSON starts with: enough to tell a
// cdkd-action report from cdkd's own JSON and to pick the result type.
type Header struct {
	SchemaVersion int  `json:"schemaVersion"`
	Kind          Kind `json:"kind"`
}

// ReportHeader reads the header of a report JSON document. ok is false for
// anything that is not a cdkd-action report (cdkd's own JSON is an array or
// has no schemaVersion); err is set for a report this version cannot read.
func ReportHeader(b []byte) (h Header, ok bool, err error) {
	// A report is an object; cdkd diff --json is an array.
	if i := firstNonSpace(b); i < 0 || b[i] != '{' {
		return Header{}, false, nil
	}
	if json.Unmarshal(b, &h) != nil || h.SchemaVersion == 0 {
		return Header{}, false, nil
	}
	if h.SchemaVersion > SchemaVersion {
		return h, true, fmt.Errorf("report schemaVersion %d is newer than this cdkd-action reads (%d)", h.SchemaVersion, SchemaVersion)
	}
	switch h.Kind {
	case KindDiff, KindDrift, KindDeploy:
		return h, true, nil
	}
	return h, true, fmt.Errorf("report kind %q is not diff, drift or deploy", h.Kind)
}

// ReportInfo is what any report says of where it comes from: enough for an
// aggregate to pair a shard's report with its shard.
type ReportInfo struct {
	Header
	Shard *ShardRef `json:"shard"`
	// Commit is the commit the report is about: a diff's pull request
	// head, a drift's checked-out commit.
	Commit string `json:"-"`
	Error  string `json:"error"`
}

// ReadReportInfo reads a report's header and origin; ok and err as for
// ReportHeader.
func ReadReportInfo(b []byte) (info ReportInfo, ok bool, err error) {
	h, ok, err := ReportHeader(b)
	if !ok || err != nil {
		return ReportInfo{Header: h}, ok, err
	}
	var raw struct {
		ReportInfo
		HeadSHA string `json:"headSha"`
		SHA     string `json:"sha"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return ReportInfo{Header: h}, true, err
	}
	info = raw.ReportInfo
	info.Commit = raw.HeadSHA + raw.SHA
	return info, true, nil
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}

// Origin is where and for what a result was produced: the facts a report's
// footer shows.
type Origin struct {
	// Label tells reports of several projects apart ("" or e.g. "prod").
	Label       string `json:"label"`
	RunURL      string `json:"runUrl,omitempty"`
	CdkdVersion string `json:"cdkdVersion,omitempty"`
	// CdkdSource says where that cdkd came from (cdkd-path, node_modules,
	// bundled, npm install).
	CdkdSource string `json:"cdkdSource,omitempty"`
	// Shard is set on a shard run of a plan: which shard, of which plan.
	Shard *ShardRef `json:"shard,omitempty"`
}

// ShardRef names a shard of a plan (see package plan): the aggregate pairs
// each report with its shard and refuses one from another plan.
type ShardRef struct {
	ID   string `json:"id"`
	Plan string `json:"plan"`
}

// DiffResult is one diff run as a typed result: the redacted, sorted diff,
// or why the run failed. It is the diff report JSON.
type DiffResult struct {
	Header
	Origin
	HeadSHA string `json:"headSha,omitempty"`
	Digest  string `json:"digest,omitempty"`
	// FingerprintKeyID identifies the key the hidden-value tokens were made with
	// ("" without one): an aggregate of shards checks they all agree.
	FingerprintKeyID string  `json:"fingerprintKeyId,omitempty"`
	HasChanges       bool    `json:"hasChanges"`
	Totals           *Counts `json:"totals,omitempty"`
	// Error, when set, makes this a failed run: cdkd's reason, and the tail
	// of its stderr.
	Error      string   `json:"error,omitempty"`
	StderrTail []string `json:"stderrTail,omitempty"`
	// Notes are sentences on how far the report can be trusted.
	Notes []string `json:"notes,omitempty"`
	// PictureIn names where the picture of what the changes touch is
	// drawn ("the PR comment"), which the other channels point to, and
	// Picture what the comment this run renders shows of it: "drawn",
	// "reduced" (one node per stack), "left out" (to fit) or "not written"
	// (the comment could not be written). The report is written before the
	// comment, with what the comment renders, and written again once the
	// comment was (or could not be) written.
	PictureIn string `json:"pictureIn,omitempty"`
	Picture   string `json:"picture,omitempty"`
	// Missing says which part of the change set is not in Stacks (a shard
	// that did not report); such a result has no digest.
	Missing string      `json:"missing,omitempty"`
	Stacks  []StackDiff `json:"stacks"`
}

// NewDiffResult is a successful diff with its digest (d.Digest(), which
// the caller has already computed): totals derived from d.
func NewDiffResult(o Origin, headSHA, digest string, d Diff) DiffResult {
	t := d.Totals()
	stacks := d.Stacks
	if stacks == nil {
		stacks = []StackDiff{}
	}
	return DiffResult{Header: Header{SchemaVersion, KindDiff}, Origin: o, HeadSHA: headSHA,
		Digest: digest, HasChanges: d.AnyChange(), Totals: &t, Stacks: stacks}
}

// FailedDiffResult is a diff run that produced no diff.
func FailedDiffResult(o Origin, headSHA, reason string, stderrTail []string) DiffResult {
	return DiffResult{Header: Header{SchemaVersion, KindDiff}, Origin: o, HeadSHA: headSHA,
		Error: reason, StderrTail: stderrTail, Stacks: []StackDiff{}}
}

// Diff is the result's diff.
func (r DiffResult) Diff() Diff { return Diff{Stacks: r.Stacks} }

// DriftResolution is what --accept or --revert did, and the detection run
// after it.
type DriftResolution struct {
	Mode string `json:"mode"` // "accept" or "revert"
	// Resources are the drifted resources the resolution acted on
	// ("Stack/LogicalId").
	Resources []string `json:"resources"`
	// Failed are resources cdkd named as not resolved (--revert's exit 2).
	Failed []ResolutionFailure `json:"failed,omitempty"`
	// Summary are cdkd's own summary lines.
	Summary []string `json:"summary,omitempty"`
	// Outcomes are what cdkd's lines say became of each resource (accepted,
	// reverted, skipped, failed, update-not-supported), the resources
	// cdkd-action refused to revert, and drifted resources no line names.
	// Counts come from these, never from the detection.
	Outcomes []ResolvedResource `json:"outcomes,omitempty"`
	// Warnings are the --dry-run plan's warnings (what the revert leaves
	// alone, token literals it would write). PlanText is that plan, and
	// Output the resolution's own text, redacted, values hidden.
	Warnings []string `json:"planWarnings,omitempty"`
	PlanText []string `json:"plan,omitempty"`
	Output   []string `json:"output,omitempty"`
	// Error is set when the resolution run itself failed.
	Error string `json:"error,omitempty"`
	// After is the detection run after the resolution; nil when it did not
	// run. AfterDrift is its report, AfterError why it failed.
	After      *RunVerdict `json:"after,omitempty"`
	AfterDrift Drift       `json:"afterDrift,omitzero"`
	AfterError string      `json:"afterError,omitempty"`
}

// Refused counts the resources cdkd-action would not let cdkd revert.
func (r *DriftResolution) Refused() int {
	return ResolutionCounts(r.Outcomes)[ResolutionRefused]
}

// Unsuccessful: the resolution run failed, cdkd named resources it did not
// resolve, or cdkd-action refused to revert some. Such a run fails whatever
// the detection after it found.
func (r *DriftResolution) Unsuccessful() bool {
	return r.Error != "" || len(r.Failed) > 0 || r.Refused() > 0
}

// ResolutionFailure is one resource a resolution left unresolved.
type ResolutionFailure struct {
	Resource string `json:"resource,omitempty"`
	Line     string `json:"line"`
}

// FinalDriftStatus is where things stand after a run: the detection run
// after a resolution when there was one, else the detection itself.
func FinalDriftStatus(detected DriftStatus, res *DriftResolution) DriftStatus {
	if res != nil && res.After != nil {
		return res.After.Status
	}
	if res != nil && res.AfterError != "" {
		return DriftError
	}
	return detected
}

// DriftResult is one drift check as a typed result. It is the drift report
// JSON, which also carries the detected status ("status") and the final
// one ("finalStatus") for workflows to read.
type DriftResult struct {
	Header
	Origin
	SHA     string     `json:"sha,omitempty"`
	Verdict RunVerdict `json:"verdict"`
	// Error is cdkd's reason when the check produced no report; StderrTail
	// is the end of its stderr.
	Error      string   `json:"error,omitempty"`
	StderrTail []string `json:"stderrTail,omitempty"`
	// CauseNote says how causes cdkd did not report were decided.
	CauseNote string   `json:"causeNote,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	// HiddenStacks are the stacks whose drifted values are all "***": no
	// assembly gave their NoEcho positions.
	HiddenStacks []string `json:"valuesHidden,omitempty"`
	// Missing says which stacks are not in Stacks (a shard that did not
	// report): the check did not complete, whatever the rest says.
	Missing    string           `json:"missing,omitempty"`
	Stacks     []StackDrift     `json:"stacks"`
	Resolution *DriftResolution `json:"resolution,omitempty"`
}

// FinalStatus is the status the check run, the tracking issue and the exit
// code follow; drift-status keeps the detected one (Verdict.Status).
func (r DriftResult) FinalStatus() DriftStatus {
	if r.Missing != "" {
		return DriftError
	}
	return FinalDriftStatus(r.Verdict.Status, r.Resolution)
}

// MarshalJSON adds the derived statuses, so a workflow need not decide
// them; they are ignored when reading a report back.
func (r DriftResult) MarshalJSON() ([]byte, error) {
	type plain DriftResult
	return json.Marshal(struct {
		plain
		Status      DriftStatus `json:"status"`
		FinalStatus DriftStatus `json:"finalStatus"`
	}{plain(r), r.Verdict.Status, r.FinalStatus()})
}
