// Package reason is the one list of failure reasons: the failure-reason
// output's values, each with the exit code it ends the step with and the
// sentence docs/inputs.md gives it. The outputs, the exit codes, the gate's
// rules and the docs check all read this list, so they cannot disagree.
package reason

import "slices"

// Reason is why the step failed, in a word a workflow can branch on (the
// failure-reason output); None when it did not.
type Reason string

// Exit is the step's exit status; each value has one meaning.
type Exit int

const (
	// ExitOK: the run worked (changes or drift may exist and were reported).
	ExitOK Exit = 0
	// ExitChanges: a result the inputs ask to fail on (changes, drift) or a
	// deploy the gate refused.
	ExitChanges Exit = 1
	// ExitBadInput: an input or the environment is wrong; nothing ran.
	ExitBadInput Exit = 2
	// ExitFailure: cdkd, AWS or GitHub failed.
	ExitFailure Exit = 3
)

// The reasons; List gives each its exit code and meaning.
const (
	None               Reason = ""
	BadInput           Reason = "bad-input"
	CdkdFailed         Reason = "cdkd-failed"
	APIFailed          Reason = "api-failed"
	Timeout            Reason = "timeout"
	Cancelled          Reason = "cancelled"
	Changes            Reason = "changes"
	ShardFailed        Reason = "shard-failed"
	ReportNotWritten   Reason = "report-not-written"
	Drift              Reason = "drift"
	Incomplete         Reason = "incomplete"
	ResolutionFailed   Reason = "resolution-failed"
	NoReviewedDiff     Reason = "no-reviewed-diff"
	StaleReview        Reason = "stale-review"
	DiffChanged        Reason = "diff-changed"
	DiffUnverifiable   Reason = "diff-unverifiable"
	KeyMismatch        Reason = "fingerprint-key-mismatch"
	ReviewsContradict  Reason = "reviews-contradict"
	DestructiveRefused Reason = "destructive-refused"
	ApprovalsMissing   Reason = "approvals-missing"
	BroadeningRefused  Reason = "broadening-refused"
	StateLocked        Reason = "state-locked"
	DeployFailed       Reason = "deploy-failed"
	Partial            Reason = "partial"
)

// Entry is one reason as the docs list it.
type Entry struct {
	Reason Reason
	// Exit is the exit code the reason ends the step with.
	Exit Exit
	// Commands are the commands that can fail with it ("every" for all).
	Commands string
	// Doc is its meaning, one sentence for docs/inputs.md.
	Doc string
}

// list is every reason, in the order docs/inputs.md lists them.
var list = []Entry{
	{BadInput, ExitBadInput, "every", "an input or the environment is wrong; nothing ran"},
	{CdkdFailed, ExitFailure, "every", "cdkd failed or printed no usable report (for a deploy: the gate's `cdkd diff`, so nothing was compared and nothing deployed)"},
	{APIFailed, ExitFailure, "every", "a GitHub API read or write failed (a missing permission is a warning instead), or the review could not be read"},
	{Timeout, ExitFailure, "every", "a cdkd call ran longer than `timeout-minutes` and was stopped"},
	{Cancelled, ExitFailure, "deploy, verify", "the job was cancelled"},
	{Changes, ExitChanges, "diff, aggregate", "the diff found changes and `fail-on-changes` is true"},
	{ShardFailed, ExitFailure, "aggregate", "a shard's report is missing, failed, or belongs to another plan or commit"},
	{ReportNotWritten, ExitFailure, "every", "the report file of a `publish: false` run, which is its product, could not be written (a full disk)"},
	{Drift, ExitChanges, "drift", "drift found and `fail-on-drift` is true"},
	{Incomplete, ExitChanges, "drift", "the drift check was incomplete and `fail-on-incomplete` is true"},
	{ResolutionFailed, ExitFailure, "drift", "`--accept` or `--revert` did not resolve the drift"},
	{NoReviewedDiff, ExitChanges, "deploy, verify", "no pull request (or several holding the commit), no trusted diff comment with a digest on it, a review comment that was edited (its digest, change-set line or visible report), or one no diff check run names"},
	{StaleReview, ExitChanges, "deploy, verify", "the review was computed at an older head than the pull request's final one, or by a cdkd-action whose digest does not cover the hidden values"},
	{DiffChanged, ExitChanges, "deploy, verify", "the change set differs from the reviewed one, hidden values included"},
	{DiffUnverifiable, ExitChanges, "deploy, verify", "the change set's hidden values cannot be compared with the review (too many distinct hidden values, or no fingerprint key), or a created resource's properties are not bound to the review"},
	{KeyMismatch, ExitChanges, "deploy, verify", "the review fingerprinted its hidden values with another fingerprint key (another `fingerprint-key`, another state bucket's key, or an older cdkd-action's)"},
	{ReviewsContradict, ExitChanges, "deploy, verify", "two pull requests merged together reviewed one change with different outcomes"},
	{DestructiveRefused, ExitChanges, "deploy, verify", "a delete or replacement nobody allowed"},
	{ApprovalsMissing, ExitChanges, "deploy, verify", "fewer approving reviews of the reviewed head than `required-approvals` (see who counts in docs/deploy.md)"},
	{BroadeningRefused, ExitChanges, "deploy, verify", "a security change `require-approval` asks about, and no approval that counts (the rows are named)"},
	{StateLocked, ExitFailure, "deploy", "another job holds a stack's lock (holder, operation and expiry are named)"},
	{DeployFailed, ExitFailure, "deploy", "cdkd deploy failed"},
	{Partial, ExitFailure, "deploy", "cdkd left resources unaddressed (its exit 2), or was stopped part way"},
}

// List is every reason with its exit code and meaning.
func List() []Entry { return slices.Clone(list) }

// Code is the exit code r ends the step with: ExitOK for None, the list's
// code for a listed reason, and ExitFailure for anything else (a reason
// this list does not know is a failure of cdkd-action's, never a pass).
func (r Reason) Code() Exit {
	if r == None {
		return ExitOK
	}
	if i := slices.IndexFunc(list, func(e Entry) bool { return e.Reason == r }); i >= 0 {
		return list[i].Exit
	}
	return ExitFailure
}

// String is the output's value.
func (r Reason) String() string { return string(r) }
