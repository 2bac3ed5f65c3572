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
	write := Permission{Level: "write"}
	base := ApprovalInput{Author: "dave", Head: headSHA, MergedAt: merged, Label: "security-approved", Pushers: []string{"dave"}, Shown: at(-30),
		Permissions: map[string]Permission{"alice": write, "bob": write, "carol": write, "dave": write, "erin": {Level: "read"}, "frank": {Unreadable: "403 Forbidden"}}}
	with := func(f func(*ApprovalInput)) ApprovalInput {
		in := base
		f(&in)
		return in
	}
	rev := func(login, state, commit string, when time.Time) ReviewRecord {
		typ := "User"
		if strings.HasSuffix(login, "[bot]") {
			typ = "Bot"
		}
		return ReviewRecord{Login: login, State: state, CommitID: commit, SubmittedAt: when, UserType: typ}
	}
	lbl := func(event, actor string, when time.Time) LabelRecord {
		typ := "User"
		if strings.HasSuffix(actor, "[bot]") {
			typ = "Bot"
		}
		return LabelRecord{Event: event, Label: "security-approved", Actor: actor, At: when, ActorType: typ}
	}
	sameSecond := merged.Add(400 * time.Millisecond)
	tests := []struct {
		name      string
		in        ApprovalInput
		reviewers []string
		labelBy   string
		ignored   string
	}{
		{"an approval of the head before the merge counts", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5))}
		}), []string{"alice"}, "", ""},
		{"the author's own approval never counts", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("dave", "APPROVED", headSHA, at(-5))}
		}), nil, "", "dave is the pull request's author"},
		{"an approval of an older commit does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", otherSHA, at(-5))}
		}), nil, "", "alice approved 2222222, not the reviewed head 1111111"},
		{"an approval after the merge does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(1))}
		}), nil, "", "alice approved after the merge"},
		{"an approval in the merge's own second does not count without auto-merge", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, sameSecond)}
		}), nil, "", "alice approved in the same second as the merge; the order cannot be known"},
		{"an approval in the merge's own second counts when auto-merge was enabled before it", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, sameSecond)}
			in.AutoMerge = []AutoMergeRecord{{Enabled: true, At: at(-3)}}
		}), []string{"alice"}, "", ""},
		{"auto-merge enabled in the approval's own second is no evidence", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, sameSecond)}
			in.AutoMerge = []AutoMergeRecord{{Enabled: true, At: merged}}
		}), nil, "", "the order cannot be known"},
		{"auto-merge disabled again before the approval is no evidence", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, sameSecond)}
			in.AutoMerge = []AutoMergeRecord{{Enabled: true, At: at(-3)}, {Enabled: false, At: at(-2)}}
		}), nil, "", "the order cannot be known"},
		{"a later change request undoes an approval", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5)), rev("alice", "CHANGES_REQUESTED", headSHA, at(-3))}
		}), nil, "", "alice requested changes"},
		{"a later comment does not undo an approval", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5)), rev("alice", "COMMENTED", headSHA, at(-3))}
		}), []string{"alice"}, "", ""},
		{"a dismissed approval does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5)), rev("alice", "DISMISSED", headSHA, at(-3))}
		}), nil, "", ""},
		{"approvers restrict who counts", with(func(in *ApprovalInput) {
			in.Approvers = []string{"Bob"}
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5)), rev("bob", "APPROVED", headSHA, at(-4))}
		}), []string{"bob"}, "", "alice is not one of approvers"},
		{"approvers never widen: a listed login without write access does not count", with(func(in *ApprovalInput) {
			in.Approvers = []string{"erin"}
			in.Reviews = []ReviewRecord{rev("erin", "APPROVED", headSHA, at(-5))}
		}), nil, "", "erin has read permission on the repository; an approval needs write, maintain or admin"},
		{"a bot's approval never counts", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("github-actions[bot]", "APPROVED", headSHA, at(-5))}
			in.Permissions["github-actions[bot]"] = write
		}), nil, "", "github-actions[bot] is not a person (account type Bot), and only people approve"},
		{"an approval whose permission cannot be read does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("frank", "APPROVED", headSHA, at(-5))}
		}), nil, "", "frank's permission on the repository could not be read (403 Forbidden)"},
		{"the pusher of the reviewed head does not approve it", with(func(in *ApprovalInput) {
			in.Pushers = []string{"dave", "alice"}
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5))}
		}), nil, "", "alice pushed the reviewed head 1111111"},
		{"with the pusher unknown no approval counts", with(func(in *ApprovalInput) {
			in.Pushers, in.PushersUnknown = nil, "the head branch is in a fork"
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5))}
		}), nil, "", "who pushed the reviewed head 1111111 is not known (the head branch is in a fork)"},
		{"the label added before the merge by another user counts", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", at(-2))}
		}), nil, "carol", ""},
		{"the label added by a bot does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "github-actions[bot]", at(-2))}
		}), nil, "", `the label "security-approved" does not count: github-actions[bot] is not a person`},
		{"the label added by someone with read access does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "erin", at(-2))}
		}), nil, "", "erin has read permission"},
		{"the label added by the author does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "dave", at(-2))}
		}), nil, "", `the label "security-approved" was added by the pull request's author, dave`},
		{"the label added after the merge does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", at(2))}
		}), nil, "", `the label "security-approved" was added by carol after the merge`},
		{"the label added in the merge's second does not count without auto-merge", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", sameSecond)}
		}), nil, "", `the label "security-approved" was added by carol in the same second as the merge; the order cannot be known`},
		{"the label added in the merge's second counts after auto-merge was enabled", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", sameSecond)}
			in.AutoMerge = []AutoMergeRecord{{Enabled: true, At: at(-1)}}
		}), nil, "carol", ""},
		{"the label removed in the merge's second approves nothing", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", at(-3)), lbl("unlabeled", "dave", sameSecond)}
		}), nil, "", "removed in the same second as the merge"},
		{"the label removed before the merge does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", at(-3)), lbl("unlabeled", "dave", at(-2))}
		}), nil, "", ""},
		{"an approval given before the review was posted does not count", with(func(in *ApprovalInput) {
			in.ShownBy = "https://github.com/o/r/runs/1"
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-40))}
		}), nil, "", "alice approved at 2026-12-01 09:20:00 UTC, before the review it would approve was posted: the diff check run https://github.com/o/r/runs/1, the first to complete that records its digest for 1111111, completed at 2026-12-01 09:30:00 UTC"},
		{"an approval in the review's own second does not count", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-30).Add(700*time.Millisecond))}
		}), nil, "", "alice approved in the same second (2026-12-01 09:30:00 UTC) as the diff check run, which posted the review it would approve, completed; the order cannot be known"},
		{"an approval the second after the review counts", with(func(in *ApprovalInput) {
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-30).Add(time.Second))}
		}), []string{"alice"}, "", ""},
		{"with the review's time unknown no approval counts", with(func(in *ApprovalInput) {
			in.Shown, in.ShownUnknown = time.Time{}, "no diff check run records its digest"
			in.Reviews = []ReviewRecord{rev("alice", "APPROVED", headSHA, at(-5))}
		}), nil, "", "alice approved, but when the review of 1111111 it would approve was posted is not known (no diff check run records its digest)"},
		{"the label added before the review was posted does not count", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", at(-40))}
		}), nil, "", `the label "security-approved" was added by carol at 2026-12-01 09:20:00 UTC, before the review it would approve was posted`},
		{"the label removed after the merge still counts: it was on at the merge", with(func(in *ApprovalInput) {
			in.Labels = []LabelRecord{lbl("labeled", "carol", at(-3)), lbl("unlabeled", "dave", at(5))}
		}), nil, "carol", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CountApprovals(tt.in)
			// The destructive label follows the same rules as the
			// security approval label.
			d := tt.in
			d.Label, d.DestructiveLabel = "", "security-approved"
			gotD := CountApprovals(d)
			assert.Equal(t, gotD.DestructiveBy, tt.labelBy)
			if tt.ignored != "" && tt.reviewers == nil && len(tt.in.Labels) > 0 {
				assert.Assert(t, strings.Contains(strings.Join(gotD.DestructiveIgnored, "; "), tt.ignored), "ignored: %q", gotD.DestructiveIgnored)
			}
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

// unresolvedDiff turns a rule's CidrIp into Fn::GetAtt of a new
// parameter: a row that cannot be evaluated before the deploy.
func unresolvedDiff() model.Diff {
	d := safeDiff()
	rule := func(cidr string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"GroupId": json.RawMessage(`"sg-1"`), "IpProtocol": json.RawMessage(`"tcp"`), "FromPort": json.RawMessage(`22`),
			"ToPort": json.RawMessage(`22`), "CidrIp": json.RawMessage(cidr)}
	}
	d.Stacks[0].Security = security.ResourceChanges(security.Resource{Stack: "StackA", LogicalID: "Ingress", Type: "AWS::EC2::SecurityGroupIngress",
		Old: rule(`"10.0.0.0/8"`), New: rule(`{"Fn::GetAtt":["Cidr","Value"]}`)})
	return d
}

// pol is a gated policy asking for approvals: scope for security changes,
// required reviews for every deploy.
func pol(scope string, required int) Policy {
	p := policy(true)
	p.RequireApproval, p.RequiredApprovals, p.SecurityApprovalLabel = scope, required, "security-approved"
	return p
}

// approved is rv approved by who.
func approved(rv Review, who ...string) Review { rv.Approvals.Reviewers = who; return rv }

func TestDecideApprovals(t *testing.T) {
	labelled := func(rv Review, by string) Review { rv.Approvals.LabelBy = by; return rv }
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
		{"broadening: an unresolved row needs an approval", pol(RequireApprovalBroadening, 0), reviewOf(unresolvedDiff()), unresolvedDiff(), reason.BroadeningRefused,
			"sg-1 ingress tcp:22 from ${Cidr.Value}"},
		{"broadening: an unresolved row approved deploys", pol(RequireApprovalBroadening, 0), approved(reviewOf(unresolvedDiff()), "alice"), unresolvedDiff(), "", "Approved by alice"},
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

// In a batch each change answers to the pull requests whose review shows
// it: an approved pull request does not carry an unapproved one's
// broadening, and a broadening approved where it was reviewed deploys
// whatever the primary's approvals.
func TestBatchApprovals(t *testing.T) {
	topic := stackWith(update("Topic", "DisplayName", "a", "b"))
	ingress := model.ResourceChange{LogicalID: "Ingress", ChangeType: model.ChangeCreate, ResourceType: "AWS::EC2::SecurityGroupIngress",
		PropertyChanges: []model.PropertyChange{{Path: "CidrIp", New: model.StringValue("0.0.0.0/0")}}}
	open := stackWith(ingress)
	open.Stacks[0].Security = broadeningDiff().Stacks[0].Security
	both := stackWith(update("Topic", "DisplayName", "a", "b"), ingress)
	both.Stacks[0].Security = open.Stacks[0].Security
	batch := func(first, second []string) Review {
		rv := reviewsOf(topic, open)
		rv = approved(rv, first...)
		rv.Batch[0] = approved(rv.Batch[0], second...)
		return rv
	}
	tests := []struct {
		name     string
		p        Policy
		rv       Review
		reason   Reason
		contains string
	}{
		{"an unapproved pull request's broadening is refused beside an approved one", pol(RequireApprovalBroadening, 0), batch([]string{"alice"}, nil),
			reason.BroadeningRefused, "pull request #8, whose review shows them, had no approval that counts"},
		{"a broadening approved in its own pull request deploys", pol(RequireApprovalBroadening, 0), batch(nil, []string{"bob"}),
			"", "Approved by bob (pull request #8, reviews of 1111111)."},
		{"required-approvals: each pull request's changes need its approvals", pol(RequireApprovalNever, 1), batch([]string{"alice"}, nil),
			reason.ApprovalsMissing, "pull request #8 has 0 approving reviews of its reviewed head 1111111 that count (none); a change is approved by a pull request whose review shows it, and these changes are shown by no pull request with enough approvals (pull request #8: create Ingress (AWS::EC2::SecurityGroupIngress) in StackA)"},
		{"required-approvals met by every pull request", pol(RequireApprovalNever, 1), batch([]string{"alice"}, []string{"bob"}),
			"", "Approved by alice (pull request #7, reviews of 1111111); bob (pull request #8, reviews of 1111111)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.p, tt.rv, current(both))
			assert.Equal(t, d.Reason, tt.reason, d.Message)
			text := d.Message + " " + d.Approval
			assert.Assert(t, strings.Contains(text, tt.contains), "%s", text)
		})
	}
}

// A deploy that asked for approvals says what did not count even when
// others sufficed: a bot's approval beside a person's is named.
func TestApprovalReportNamesWhatDidNotCount(t *testing.T) {
	rv := approved(reviewOf(safeDiff()), "alice")
	rv.Approvals.Ignored = []string{"github-actions[bot] is not a person (account type Bot), and only people approve"}
	d := Decide(pol(RequireApprovalNever, 1), rv, current(safeDiff()))
	assert.Assert(t, d.Deploy, d.Message)
	assert.Equal(t, d.Approval, "Approved by alice (reviews of 1111111). Not counted: github-actions[bot] is not a person (account type Bot), and only people approve.")
	assert.Equal(t, d.Unapproved, "")

	rv.Approvals.Reviewers = nil
	d = Decide(pol(RequireApprovalNever, 0), rv, current(safeDiff()))
	assert.Equal(t, d.Approval, "", "no approval asked: nothing to say of what did not count")
	assert.Equal(t, d.Unapproved, "no approval on the reviewed head 1111111 of pull request #7")
}
