package gate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The require-approval scopes (config.ApprovalScope's values).
const (
	RequireApprovalNever      = "never"
	RequireApprovalBroadening = "broadening"
	RequireApprovalAnyChange  = "any-change"
)

// ReviewRecord is one pull request review as GitHub lists it.
type ReviewRecord struct {
	Login, State, CommitID string
	SubmittedAt            time.Time
}

// LabelRecord is one label added to ("labeled") or removed from
// ("unlabeled") the pull request, by whom and when.
type LabelRecord struct {
	Event, Label, Actor string
	At                  time.Time
}

// Approvals is who approved the pull request, under the one review
// approval rule both required-approvals and require-approval use.
type Approvals struct {
	// Reviewers approved the reviewed head, sorted.
	Reviewers []string
	// LabelBy added the security approval label ("" when nobody did,
	// in a way that counts).
	LabelBy string
	// Ignored says, per review or label that did not count, why.
	Ignored []string
}

// ApprovalInput is what the rule reads.
type ApprovalInput struct {
	// Author opened the pull request: their own approval never counts.
	Author string
	// Head is the reviewed head commit: only approvals of it count.
	Head string
	// MergedAt: only what happened before the merge counts (zero: the
	// pull request is not merged, everything so far counts).
	MergedAt time.Time
	// Approvers, when set, are the only logins that count.
	Approvers []string
	// Label is the security approval label.
	Label   string
	Reviews []ReviewRecord
	Labels  []LabelRecord
}

// CountApprovals is the review approval rule. Per reviewer, the latest of
// their reviews that is APPROVED, CHANGES_REQUESTED or DISMISSED decides (a
// COMMENTED review changes nothing); it counts when it is APPROVED, of the
// reviewed head, submitted before the merge, by someone other than the
// author (and one of approvers, when set). The label counts when someone
// other than the author (and one of approvers, when set) added it before
// the merge and nobody removed it before the merge.
func CountApprovals(in ApprovalInput) Approvals {
	var a Approvals
	before := func(t time.Time) bool { return in.MergedAt.IsZero() || t.Before(in.MergedAt) } // the merge's own second is after: fail closed
	allowed := func(login string) bool {
		return len(in.Approvers) == 0 || slices.ContainsFunc(in.Approvers, func(x string) bool { return strings.EqualFold(x, login) })
	}
	latest := map[string]ReviewRecord{}
	for _, r := range in.Reviews {
		switch r.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
		default:
			continue
		}
		if !before(r.SubmittedAt) {
			if r.State == "APPROVED" {
				a.Ignored = append(a.Ignored, fmt.Sprintf("%s approved after the merge", r.Login))
			}
			continue
		}
		key := strings.ToLower(r.Login)
		if prev, ok := latest[key]; !ok || !r.SubmittedAt.Before(prev.SubmittedAt) {
			latest[key] = r
		}
	}
	for _, k := range slices.Sorted(maps.Keys(latest)) {
		r := latest[k]
		switch {
		case r.State != "APPROVED":
			if r.State == "CHANGES_REQUESTED" {
				a.Ignored = append(a.Ignored, fmt.Sprintf("%s requested changes", r.Login))
			}
		case strings.EqualFold(r.Login, in.Author):
			a.Ignored = append(a.Ignored, fmt.Sprintf("%s is the pull request's author", r.Login))
		case r.CommitID != in.Head:
			a.Ignored = append(a.Ignored, fmt.Sprintf("%s approved %s, not the reviewed head %s", r.Login, short(r.CommitID), short(in.Head)))
		case !allowed(r.Login):
			a.Ignored = append(a.Ignored, fmt.Sprintf("%s is not one of approvers", r.Login))
		default:
			a.Reviewers = append(a.Reviewers, r.Login)
		}
	}
	if in.Label != "" {
		a.LabelBy, a.Ignored = labelApproval(in, before, allowed, a.Ignored)
	}
	return a
}

// labelApproval finds who put the approval label on before the merge, if it
// was still on then.
func labelApproval(in ApprovalInput, before func(time.Time) bool, allowed func(string) bool, ignored []string) (string, []string) {
	events := slices.Clone(in.Labels)
	slices.SortStableFunc(events, func(a, b LabelRecord) int { return a.At.Compare(b.At) })
	by := ""
	for _, e := range events {
		if !strings.EqualFold(e.Label, in.Label) {
			continue
		}
		switch {
		case !before(e.At):
			if e.Event == "labeled" {
				ignored = append(ignored, fmt.Sprintf("the label %q was added by %s after the merge", in.Label, e.Actor))
			}
		case e.Event == "unlabeled":
			by = ""
		case strings.EqualFold(e.Actor, in.Author):
			ignored = append(ignored, fmt.Sprintf("the label %q was added by the pull request's author, %s", in.Label, e.Actor))
		case !allowed(e.Actor):
			ignored = append(ignored, fmt.Sprintf("the label %q was added by %s, who is not one of approvers", in.Label, e.Actor))
		default:
			by = e.Actor
		}
	}
	return by, ignored
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
