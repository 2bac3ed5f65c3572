package review

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/ghctx"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// Approval is what the gate's approval rules (gate.CountApprovals) need
// read: whether an input needs approvals at all, the security approval
// label when require-approval asks about one, and who may approve.
type Approval struct {
	// Needed: required-approvals or require-approval asks for approvals,
	// so a failed read stops the deploy.
	Needed bool
	// Label is the security approval label ("" when require-approval is
	// never: its history is not read).
	Label string
	// Approvers, when set, are the only logins that count.
	Approvers []string
}

// approvals reads who approved pull request pr, whose review was shown at
// sh: its reviews and, when an approval label (the security approval
// label, the destructive label) is on it or it merged (a label on at the
// merge counts, though removed since), who added and removed the labels
// and when; then, for the
// approvals that could count, what the rule needs to know of their
// authors (their permission on the repository, whether they pushed the
// reviewed head) and, for one in the merge's own second, whether auto-merge
// was enabled before it. A read of the reviews or labels that fails stops
// the deploy when an input needs approvals; otherwise the report cannot
// name who approved, and the log says why. What cannot be read of an
// approver makes their approval not count, and the report says why.
func (s *Finder) approvals(ctx context.Context, pr ghctx.PullRequest, sh Shown) (gate.Approvals, error) {
	a := s.Where.Approval
	in := gate.ApprovalInput{Author: pr.Author, Head: pr.HeadSHA, MergedAt: pr.MergedAt, Approvers: a.Approvers,
		Shown: sh.At, ShownBy: sh.By, ShownUnknown: sh.Unknown}
	reviews, err := s.API.ListReviews(ctx, pr.Number)
	if err != nil {
		err = fmt.Errorf("read the reviews of pull request #%d (the job needs pull-requests: read): %w", pr.Number, err)
		if a.Needed {
			return gate.Approvals{}, err
		}
		s.Warn(fmt.Sprintf("%v; the report cannot name who approved", err))
		return gate.Approvals{}, nil
	}
	var candidates []string // whose approval could count
	var times []time.Time
	named := func(login string) bool {
		return slices.ContainsFunc(candidates, func(x string) bool { return strings.EqualFold(x, login) })
	}
	listed := func(login string) bool {
		return len(a.Approvers) == 0 || slices.ContainsFunc(a.Approvers, func(x string) bool { return strings.EqualFold(x, login) })
	}
	add := func(login string, at time.Time) {
		if !strings.EqualFold(login, pr.Author) && listed(login) && !named(login) {
			candidates = append(candidates, login)
		}
		times = append(times, at)
	}
	for _, rv := range reviews {
		in.Reviews = append(in.Reviews, gate.ReviewRecord{Login: rv.Login, State: rv.State, CommitID: rv.CommitID, SubmittedAt: rv.SubmittedAt, UserType: rv.UserType})
		if rv.State == "APPROVED" && rv.CommitID == pr.HeadSHA && rv.UserType == "User" {
			add(rv.Login, rv.SubmittedAt)
		}
	}
	labels := slices.DeleteFunc([]string{a.Label, s.Where.DestructiveLabel}, func(l string) bool { return l == "" })
	on := func(l string) bool {
		return slices.ContainsFunc(pr.Labels, func(x string) bool { return strings.EqualFold(x, l) })
	}
	if len(labels) > 0 && (pr.Merged || !pr.MergedAt.IsZero() || slices.ContainsFunc(labels, on)) {
		events, err := s.API.ListLabelEvents(ctx, pr.Number)
		if err != nil {
			return gate.Approvals{}, fmt.Errorf("read who added the labels of pull request #%d (the job needs issues: read or pull-requests: read): %w", pr.Number, err)
		}
		in.Label, in.DestructiveLabel = a.Label, s.Where.DestructiveLabel
		for _, e := range events {
			in.Labels = append(in.Labels, gate.LabelRecord{Event: e.Event, Label: e.Label, Actor: e.Actor, At: e.At, ActorType: e.ActorType})
			if e.Event == "labeled" && slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(e.Label, l) }) && e.ActorType == "User" {
				add(e.Actor, e.At)
			}
		}
	}
	if len(candidates) == 0 {
		return gate.CountApprovals(in), nil
	}
	in.Pushers, in.PushersUnknown = s.pushers(ctx, pr)
	in.Permissions = s.permissions(ctx, candidates)
	if !pr.MergedAt.IsZero() && slices.ContainsFunc(times, func(t time.Time) bool { return t.Truncate(time.Second).Equal(pr.MergedAt.Truncate(time.Second)) }) {
		events, err := s.API.AutoMergeEvents(ctx, pr.Number)
		if err != nil {
			s.Warn(fmt.Sprintf("could not read the timeline of pull request #%d, so an approval in the merge's own second cannot be shown to come after auto-merge was enabled, and does not count: %v", pr.Number, err))
		}
		for _, e := range events {
			in.AutoMerge = append(in.AutoMerge, gate.AutoMergeRecord{Enabled: e.Enabled, At: e.At})
		}
	}
	return gate.CountApprovals(in), nil
}

// pushers are who pushed pr's head commit to its branch, from the
// repository's activity; nil, with why, when that cannot be known.
func (s *Finder) pushers(ctx context.Context, pr ghctx.PullRequest) ([]string, string) {
	head := reporters.ShortSHA(pr.HeadSHA)
	switch {
	case pr.Fork:
		return nil, "the pull request's branch is in a fork, whose pushes this repository's activity does not record"
	case pr.HeadRef == "":
		return nil, "GitHub names no branch for the pull request's head"
	}
	pushes, err := s.API.Pushes(ctx, pr.HeadRef)
	if err != nil {
		return nil, fmt.Sprintf("the repository's activity could not be read: %v", err)
	}
	var out []string
	for _, p := range pushes {
		if p.After == pr.HeadSHA && p.Actor != "" && !slices.Contains(out, p.Actor) {
			out = append(out, p.Actor)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("the repository's activity records no push of %s to %s", head, pr.HeadRef)
	}
	return out, ""
}

// permissions reads the repository permission of each login, once a run.
func (s *Finder) permissions(ctx context.Context, logins []string) map[string]gate.Permission {
	if s.perms == nil {
		s.perms = map[string]gate.Permission{}
	}
	out := map[string]gate.Permission{}
	for _, login := range logins {
		key := strings.ToLower(login)
		p, ok := s.perms[key]
		if !ok {
			level, err := s.API.Permission(ctx, login)
			p = gate.Permission{Level: level}
			if err != nil {
				p = gate.Permission{Unreadable: err.Error()}
			}
			s.perms[key] = p
		}
		out[key] = p
	}
	return out
}
