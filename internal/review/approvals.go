package review

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/gate"
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

// approvals reads who approved pull request pr: its reviews and, when the
// approval label is on it, who added that label and when. A read that
// fails stops the deploy when an input needs approvals; otherwise the
// report cannot name who approved, and the log says why.
func (s *Finder) approvals(ctx context.Context, pr PullRequest) (gate.Approvals, error) {
	a := s.Where.Approval
	in := gate.ApprovalInput{Author: pr.Author, Head: pr.HeadSHA, MergedAt: pr.MergedAt, Approvers: a.Approvers}
	reviews, err := s.API.ListReviews(ctx, pr.Number)
	if err != nil {
		err = fmt.Errorf("read the reviews of pull request #%d (the job needs pull-requests: read): %w", pr.Number, err)
		if a.Needed {
			return gate.Approvals{}, err
		}
		s.Warn(fmt.Sprintf("%v; the report cannot name who approved", err))
		return gate.Approvals{}, nil
	}
	for _, rv := range reviews {
		in.Reviews = append(in.Reviews, gate.ReviewRecord{Login: rv.Login, State: rv.State, CommitID: rv.CommitID, SubmittedAt: rv.SubmittedAt})
	}
	if a.Label != "" && slices.ContainsFunc(pr.Labels, func(l string) bool { return strings.EqualFold(l, a.Label) }) {
		events, err := s.API.ListLabelEvents(ctx, pr.Number)
		if err != nil {
			return gate.Approvals{}, fmt.Errorf("read who added the labels of pull request #%d (the job needs issues: read or pull-requests: read): %w", pr.Number, err)
		}
		in.Label = a.Label
		for _, e := range events {
			in.Labels = append(in.Labels, gate.LabelRecord{Event: e.Event, Label: e.Label, Actor: e.Actor, At: e.At})
		}
	}
	return gate.CountApprovals(in), nil
}
