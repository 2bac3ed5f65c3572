package gate

import (
	"time"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// What the decision is made of: the inputs, the reviews and the change
// set about to be deployed, all typed, none read here.

// Policy is the deploy inputs the decision depends on.
type Policy struct {
	// RequireReviewedDiff refuses anything but the reviewed change set.
	RequireReviewedDiff bool
	// AllowDestructive allows every delete and replacement.
	AllowDestructive bool
	// DestructiveLabel, on the pull request, allows them too.
	DestructiveLabel string
	// AllowDestroyTypes are resource types whose delete or replacement
	// needs no approval.
	AllowDestroyTypes []string
	// Bot is the login trusted diff comments are written by, for messages.
	Bot string
	// RequireApproval is which security changes need an approval
	// (RequireApprovalNever, ...); SecurityApprovalLabel approves them.
	RequireApproval       string
	SecurityApprovalLabel string
	// RequiredApprovals is how many approving reviews a deploy needs.
	RequiredApprovals int
	// TrustedApp is the app whose diff check runs vouch for a review ("":
	// github-actions).
	TrustedApp string
}

// Review is what the pull request says reviewers saw.
type Review struct {
	// PR is the pull request the deployed commit came from; 0 when none.
	PR int
	// Layout is the layout the review's visible report was written in
	// (marker.Header.Render, at least 1); 0 when there is no review
	// comment. The current change set is redacted as that layout's diff
	// redacted it, so an unchanged change set keeps its digest.
	Layout int
	// HeadSHA is the pull request's final head commit.
	HeadSHA string
	// MergedAt is when the pull request merged, for messages ("" if not).
	MergedAt string
	// Ambiguous lists the pull requests the deployed commit belongs to
	// when there are several: whose review and labels count is unclear.
	Ambiguous []int
	// Commit names what was deployed, for messages ("commit abc1234").
	Commit string
	// Comment is set when a diff comment written by the trusted identity
	// exists on the pull request.
	Comment bool
	// ReviewedSHA and Digest are that comment's hidden header: the head the
	// diff was computed at, and its digest ("" for a failed diff, which is
	// not a review).
	ReviewedSHA string
	Digest      string
	// KeyID identifies the fingerprint-key the review's hidden-value tokens were
	// keyed with ("" without one).
	KeyID string
	// CdkdVersion is the cdkd release the reviewed diff ran ("" unknown).
	CdkdVersion string
	// ChangeSet is the reviewed change set as stored in the comment, nil
	// when the comment does not carry a usable one.
	ChangeSet *ChangeSet
	// Tampered says how the comment was found altered since the diff wrote
	// it (a stored change set that does not match its header), "" when it
	// was not.
	Tampered string
	// Unreadable says why the change set the diff kept in the state bucket
	// (too large for its comment) cannot be read and checked; "" when it
	// was, or none was kept.
	Unreadable string
	// Rerender, set when the comment does not store the change set whole
	// (only its fingerprints), renders the visible report again from a
	// change set the reviewed digest covers and says how the comment's
	// differs ("" when it does not). Decide calls it with the current
	// change set when its digest is the reviewed one: the hidden lines
	// alone do not bind what reviewers read, so a report kept from another
	// change set over this one's digest is an edit.
	Rerender func(model.Diff) string
	// Record is what the diff command's check run on ReviewedSHA recorded:
	// unlike the comment, which anyone with write access can edit (GitHub
	// keeps its author), a check run cannot be edited in GitHub's UI. Nil
	// when no such check run exists (the diff ran with check-run: false, or
	// could not create one): the comment then cannot be cross-checked.
	Record *Record
	// Note says why no review could be found when that is not obvious
	// (no token, a direct push), for the message.
	Note string
	// Batch are the reviews of the other pull requests merged in the same
	// push (a merge queue's batch), each found and verified as this one.
	// Their change sets count under the coverage rule (see cover.go).
	Batch []Review
	// Approvals is who approved this pull request (see CountApprovals).
	Approvals Approvals
}

// all is rv and its batch.
func (rv Review) all() []Review {
	return append([]Review{rv}, rv.Batch...)
}

// Record is the newest diff check run on the reviewed commit.
type Record struct {
	// Name is the check run's name ("cdkd diff", plus the label).
	Name string
	// Digest is the digest its external ID records (see DiffRecord); ""
	// when it records none: a failed diff, or a diff run by a cdkd-action
	// older than the record.
	Digest string
	// CommentID is the diff comment the check run vouches for: the gate
	// reads that comment only. 0 when it names none (a diff run by an older
	// cdkd-action, or one that could not write its comment).
	CommentID int64
	// ReportHash is prcomment.ReportHash of that comment's visible report
	// as the diff posted it.
	ReportHash string
	// URL links the check run, for messages.
	URL string
	// Stored: the whole reviewed change set is in the state bucket under
	// its digest (reviewstore), since it did not fit in the comment.
	Stored bool
	// Kept says where the change set is kept (Kept*); "" in a record
	// older than v3, which does not say unless Stored.
	Kept string
	// Renderer is the layout the comment's visible report was rendered
	// in (prcomment.RendererVersion of the diff's release); 0 when the
	// record names no comment.
	Renderer int
	// CompletedAt is when the check run completed (zero while it has
	// not): the review it records was shown by then.
	CompletedAt time.Time
}

// Current is the change set about to be deployed, redacted and sorted, and
// its digest, computed exactly as the diff command computes it.
type Current struct {
	Diff   model.Diff
	Digest string
	// Unverifiable says why the hidden values were not
	// fingerprinted ("" when they were).
	Unverifiable string
	// KeyID identifies the fingerprint-key of the hidden-value tokens ("" without
	// one).
	KeyID string
	// CdkdVersion is the cdkd release that computed it ("" unknown).
	CdkdVersion string
}
