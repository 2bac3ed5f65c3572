package review

import (
	"context"
	"time"
)

// What the lookup reads, as the caller's GitHub client gives it: the
// package decides which comment is the review and reads no API itself.

// PullRequest is a pull request as the lookup needs it.
type PullRequest struct {
	Number         int
	HeadSHA        string
	BaseRef        string
	MergeCommitSHA string
	Merged         bool
	// Open: neither merged nor closed.
	Open bool
	// MergedAt is zero when it was not merged.
	MergedAt time.Time
	Labels   []string
	// Author opened it: their own approval never counts.
	Author string
	// HeadRef is the branch its head is on; Fork: that branch is in
	// another repository (or one GitHub no longer names), whose pushes this
	// repository's activity does not record.
	HeadRef string
	Fork    bool
}

// Comment is a diff comment written by the action's identity.
type Comment struct {
	ID      int64
	Body    string
	HTMLURL string
}

// CheckRun is a check run on a commit, with the app that created it.
type CheckRun struct {
	ID         int64
	Name       string
	HeadSHA    string
	ExternalID string
	// AppSlug is "" when no app created it.
	AppSlug string
	HTMLURL string
	// CompletedAt is when it completed; zero while it has not.
	CompletedAt time.Time
}

// LabelEvent is a label added to ("labeled") or removed from a pull request.
type LabelEvent struct {
	Event string
	Label string
	At    time.Time
	// Actor added or removed it; ActorType is GitHub's type of that
	// account ("User", "Bot", ...).
	Actor, ActorType string
}

// PullReview is a pull request review: who, in what state (APPROVED,
// CHANGES_REQUESTED, COMMENTED, DISMISSED), of which commit, and when.
type PullReview struct {
	Login, State, CommitID string
	SubmittedAt            time.Time
	// UserType is GitHub's type of the reviewer's account.
	UserType string
}

// Push is a push to a branch, from the repository's activity: the commit
// it moved the branch to, and who pushed.
type Push struct {
	After            string
	Actor, ActorType string
}

// AutoMergeEvent is auto-merge enabled or disabled on a pull request.
type AutoMergeEvent struct {
	Enabled bool
	At      time.Time
}

// Ref is a git reference: its full name and the commit it points at.
type Ref struct {
	Name, SHA string
}

// API is what the lookup reads, in the repository being deployed.
type API interface {
	GetPullRequest(ctx context.Context, number int) (PullRequest, error)
	PullRequestsForCommit(ctx context.Context, sha string) ([]PullRequest, error)
	// CommitsBetween lists the commits reachable from head and not from
	// base, oldest first.
	CommitsBetween(ctx context.Context, base, head string) ([]string, error)
	// QueueRefs lists the merge queue's refs of branch (every name that
	// starts with refs/heads/gh-readonly-queue/<branch>/), each with the
	// commit it points at: one per entry in the queue, at its group head.
	QueueRefs(ctx context.Context, branch string) ([]Ref, error)
	ListLabelEvents(ctx context.Context, number int) ([]LabelEvent, error)
	ListReviews(ctx context.Context, number int) ([]PullReview, error)
	// Permission is login's base permission on the repository (admin,
	// write, read, none).
	Permission(ctx context.Context, login string) (string, error)
	// Pushes lists the pushes to branch, newest first.
	Pushes(ctx context.Context, branch string) ([]Push, error)
	// AutoMergeEvents lists when auto-merge was enabled or disabled on
	// pull request number, oldest first.
	AutoMergeEvents(ctx context.Context, number int) ([]AutoMergeEvent, error)
	ListCheckRunsForRef(ctx context.Context, ref, checkName string) ([]CheckRun, error)
	// DiffComments lists, oldest first, the comments on pull request
	// number that carry the diff header for label and were written by
	// author; the source names the look-alikes by anyone else.
	DiffComments(ctx context.Context, number int, label, author string) ([]Comment, error)
}
