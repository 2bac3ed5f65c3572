package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/config"
	"github.com/cdkd-action/cdkd-action/internal/gate"
	"github.com/cdkd-action/cdkd-action/internal/github"
)

// approvals reads who approved pull request pr, for the gate's approval
// rules (gate.CountApprovals): its reviews and, when require-approval asks
// and the approval label is on it, who added that label and when. A read
// that fails stops the deploy when an input needs approvals; otherwise the
// report cannot name who approved, and says why.
func (s *prReviews) approvals(ctx context.Context, pr github.PullRequest) (gate.Approvals, error) {
	r := s.r
	needed := r.cfg.RequiredApprovals > 0 || r.cfg.RequireApproval != config.ApprovalNever
	in := gate.ApprovalInput{Author: pr.Author, Head: pr.HeadSHA, MergedAt: pr.MergedAt, Approvers: r.cfg.Approvers}
	reviews, err := r.api.ListReviews(ctx, r.gh.Owner, r.gh.Repo, pr.Number)
	if err != nil {
		err = fmt.Errorf("read the reviews of pull request #%d (the job needs pull-requests: read): %w", pr.Number, err)
		if needed {
			return gate.Approvals{}, err
		}
		r.runner.Warning(fmt.Sprintf("%v; the report cannot name who approved", err))
		return gate.Approvals{}, nil
	}
	for _, rv := range reviews {
		in.Reviews = append(in.Reviews, gate.ReviewRecord{Login: rv.Login, State: rv.State, CommitID: rv.CommitID, SubmittedAt: rv.SubmittedAt})
	}
	label := r.cfg.SecurityApprovalLabel
	if r.cfg.RequireApproval != config.ApprovalNever && slices.ContainsFunc(pr.Labels, func(l string) bool { return strings.EqualFold(l, label) }) {
		events, err := r.api.ListLabelEvents(ctx, r.gh.Owner, r.gh.Repo, pr.Number)
		if err != nil {
			return gate.Approvals{}, fmt.Errorf("read who added the labels of pull request #%d (the job needs issues: read or pull-requests: read): %w", pr.Number, err)
		}
		in.Label = label
		for _, e := range events {
			in.Labels = append(in.Labels, gate.LabelRecord{Event: e.Event, Label: e.Label, Actor: e.Actor, At: e.At})
		}
	}
	return gate.CountApprovals(in), nil
}
