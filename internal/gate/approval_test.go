package gate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

var merged = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func at(min int) time.Time { return merged.Add(time.Duration(min) * time.Minute) }

func TestCountApprovals(t *testing.T) {
	base := ApprovalInput{Author: "dave", Head: headSHA, MergedAt: merged, Label: "security-approved"}
	with := func(f func(*ApprovalInput)) ApprovalInput {
		in := base
		f(&in)
		return in
	}
	tests := []struct {
		name      string
		in        ApprovalInput
		reviewers []string
		labelBy   string
		ignored   string
	}{
		{"an approval of the head before the merge counts", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(-5)}}
		}), []string{"alice"}, "", ""},
		{"the author's own approval never counts", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"dave", "APPROVED", headSHA, at(-5)}}
		}), nil, "", "dave is the pull request's author"},
		{"an approval of an older commit does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", otherSHA, at(-5)}}
		}), nil, "", "alice approved 2222222, not the reviewed head 1111111"},
		{"an approval after the merge does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(1)}}
		}), nil, "", "alice approved after the merge"},
		{"an approval in the merge's own second does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(0)}}
		}), nil, "", "alice approved after the merge"},
		{"a later change request undoes an approval", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(-5)}, {"alice", "CHANGES_REQUESTED", headSHA, at(-3)}}
		}), nil, "", "alice requested changes"},
		{"a later comment does not undo an approval", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(-5)}, {"alice", "COMMENTED", headSHA, at(-3)}}
		}), []string{"alice"}, "", ""},
		{"a dismissed approval does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(-5)}, {"alice", "DISMISSED", headSHA, at(-3)}}
		}), nil, "", ""},
		{"approvers restrict who counts", with(func(in *ApprovalInput) {
			in.Approvers = []string{"Bob"}
			in.Reviews = []ReviewRecord{{"alice", "APPROVED", headSHA, at(-5)}, {"bob", "APPROVED", headSHA, at(-4)}}
		}), []string{"bob"}, "", "alice is not one of approvers"},
		{"the label added before the merge by another user counts", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{{"labeled", "security-approved", "carol", at(-2)}}
		}), nil, "carol", ""},
		{"the label added by the author does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{{"labeled", "security-approved", "dave", at(-2)}}
		}), nil, "", `the label "security-approved" was added by the pull request's author, dave`},
		{"the label added after the merge does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{{"labeled", "security-approved", "carol", at(2)}}
		}), nil, "", `the label "security-approved" was added by carol after the merge`},
		{"the label removed before the merge does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{{"labeled", "security-approved", "carol", at(-3)}, {"unlabeled", "security-approved", "dave", at(-2)}}
		}), nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CountApprovals(tt.in)
			assert.DeepEqual(t, got.Reviewers, tt.reviewers)
			assert.Equal(t, got.LabelBy, tt.labelBy)
			if tt.ignored != "" {
				assert.Assert(t, strings.Contains(strings.Join(got.Ignored, "; "), tt.ignored), "ignored: %q", got.Ignored)
			}
		})
	}
}

// broadeningDiff adds an ingress rule from anywhere: one broadening row.
func broadeningDiff() model.Diff {
	d := safeDiff()
	d.Stacks[0].Security = security.ResourceChanges(security.Resource{Stack: "StackA", LogicalID: "Ingress", Type: "AWS::EC2::SecurityGroupIngress",
		New: map[string]json.RawMessage{"GroupId": json.RawMessage(`"sg-1"`), "IpProtocol": json.RawMessage(`"tcp"`), "FromPort": json.RawMessage(`22`),
			"ToPort": json.RawMessage(`22`), "CidrIp": json.RawMessage(`"0.0.0.0/0"`)}})
	return d
}

// narrowingDiff narrows a rule: a security change, none broadening.
func narrowingDiff() model.Diff {
	d := safeDiff()
	rule := func(cidr string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"GroupId": json.RawMessage(`"sg-1"`), "IpProtocol": json.RawMessage(`"tcp"`), "FromPort": json.RawMessage(`22`),
			"ToPort": json.RawMessage(`22`), "CidrIp": json.RawMessage(`"` + cidr + `"`)}
	}
	d.Stacks[0].Security = security.ResourceChanges(security.Resource{Stack: "StackA", LogicalID: "Ingress", Type: "AWS::EC2::SecurityGroupIngress",
		Old: rule("10.0.0.0/8"), New: rule("10.0.0.0/16")})
	return d
}

func TestDecideApprovals(t *testing.T) {
	approved := func(rv Review, who ...string) Review { rv.Approvals.Reviewers = who; return rv }
	labelled := func(rv Review, by string) Review { rv.Approvals.LabelBy = by; return rv }
	pol := func(scope string, required int) Policy {
		p := policy(true)
		p.RequireApproval, p.RequiredApprovals, p.SecurityApprovalLabel = scope, required, "security-approved"
		return p
	}
	tests := []struct {
		name     string
		p        Policy
		rv       Review
		d        model.Diff
		reason   Reason
		contains string
	}{
		{"never: a broadening deploys", pol(RequireApprovalNever, 0), reviewOf(broadeningDiff()), broadeningDiff(), "", "no approval"},
		{"broadening without approval is refused, naming the row", pol(RequireApprovalBroadening, 0), reviewOf(broadeningDiff()), broadeningDiff(), reason.BroadeningRefused,
			"sg-1 ingress tcp:22 from 0.0.0.0/0 in Ingress (AWS::EC2::SecurityGroupIngress) in StackA"},
		{"broadening approved by a review deploys", pol(RequireApprovalBroadening, 0), approved(reviewOf(broadeningDiff()), "alice"), broadeningDiff(), "", "Approved by alice"},
		{"broadening approved by the label deploys", pol(RequireApprovalBroadening, 0), labelled(reviewOf(broadeningDiff()), "carol"), broadeningDiff(), "", `label "security-approved" by carol`},
		{"broadening: a narrowing needs nothing", pol(RequireApprovalBroadening, 0), reviewOf(narrowingDiff()), narrowingDiff(), "", "no approval"},
		{"any-change: a narrowing needs approval", pol(RequireApprovalAnyChange, 0), reviewOf(narrowingDiff()), narrowingDiff(), reason.BroadeningRefused, "would change access"},
		{"required-approvals counts reviews", pol(RequireApprovalNever, 2), approved(reviewOf(safeDiff()), "alice"), safeDiff(), reason.ApprovalsMissing,
			"required-approvals is 2, but pull request #7 has 1 approving review of its reviewed head 1111111"},
		{"required-approvals met", pol(RequireApprovalNever, 2), approved(reviewOf(safeDiff()), "alice", "bob"), safeDiff(), "", "Approved by alice, bob"},
		{"required-approvals without a pull request", func() Policy { p := pol(RequireApprovalNever, 1); p.RequireReviewedDiff = false; return p }(),
			Review{Commit: "commit 9999999", Note: "a direct push"}, safeDiff(), reason.ApprovalsMissing, "no pull request was found for commit 9999999"},
		{"a label does not count as a review for required-approvals", pol(RequireApprovalBroadening, 1), labelled(reviewOf(safeDiff()), "carol"), safeDiff(), reason.ApprovalsMissing, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.p, tt.rv, current(tt.d))
			assert.Equal(t, d.Reason, tt.reason, d.Message)
			assert.Equal(t, d.Deploy, tt.reason == "")
			text := d.Message + " " + d.Approval + " " + d.Unapproved
			assert.Assert(t, strings.Contains(text, tt.contains), "%s", text)
		})
	}
}
