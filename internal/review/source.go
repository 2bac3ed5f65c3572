package review

import (
	"context"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/ghctx"
)

// What the lookup reads, as the caller's GitHub client gives it: the
// package decides which comment is the review and reads no API itself.
// Each type but Comment has exactly the fields of internal/github's (the
// caller converts one into the other, so the compiler keeps them alike);
// the package may not import internal/github (internal/archtest).

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
	Conclusion string
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
// it moved the branch from and to, its type (push, force_push,
// branch_creation), who pushed, and when.
type Push struct {
	Before, After string
	Type          string
	Actor         string
	ActorType     string
	At            time.Time
}

// AutoMergeEvent is auto-merge enabled or disabled on a pull request.
type AutoMergeEvent struct {
	Enabled bool
	Actor   string
	At      time.Time
}

// Ref is a git reference: its full name and the commit it points at.
type Ref struct {
	Name, SHA string
}

// API is what the lookup reads, in the repository being deployed.
type API interface {
	GetPullRequest(ctx context.Context, number int) (ghctx.PullRequest, error)
	PullRequestsForCommit(ctx context.Context, sha string) ([]ghctx.PullRequest, error)
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
