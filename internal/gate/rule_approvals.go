package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// approvalsGiven: the pull request has the approving reviews
// required-approvals asks for (see CountApprovals for which count).
type approvalsGiven struct{}

func (approvalsGiven) about() about { return about{reason: reason.ApprovalsMissing} }

func (approvalsGiven) check(s *state) *finding {
	p, rv := s.p, s.rv
	a := rv.Approvals
	switch {
	case p.RequiredApprovals == 0:
		return nil
	case rv.PR == 0:
		return &finding{title: "Not enough approvals", msg: fmt.Sprintf("required-approvals is %d, but no pull request was found for %s, so no review approves it. Not deploying.",
			p.RequiredApprovals, firstNonEmpty(rv.Commit, "this commit"))}
	case len(a.Reviewers) >= p.RequiredApprovals:
		return nil
	}
	who := "none"
	if len(a.Reviewers) > 0 {
		who = strings.Join(a.Reviewers, ", ")
	}
	return &finding{title: "Not enough approvals",
		msg: fmt.Sprintf("required-approvals is %d, but pull request #%d has %d approving review%s of its reviewed head %s given before the merge by someone other than its author (%s).%s Not deploying.",
			p.RequiredApprovals, rv.PR, len(a.Reviewers), plural(len(a.Reviewers)), short(rv.HeadSHA), who, notCounted(a))}
}

// notCounted says which reviews and labels did not count, and why.
func notCounted(a Approvals) string {
	if len(a.Ignored) == 0 {
		return ""
	}
	return " Not counted: " + strings.Join(a.Ignored, "; ") + "."
}

// approvedBy says who approved, for the report of a deploy: "" when
// nobody did.
func approvedBy(p Policy, rv Review, cur Current) string {
	a := rv.Approvals
	var out string
	if len(a.Reviewers) > 0 {
		out = fmt.Sprintf("Approved by %s (reviews of %s).", strings.Join(a.Reviewers, ", "), short(rv.HeadSHA))
	}
	if a.LabelBy != "" && len(securityRows(p, cur)) > 0 {
		out = strings.TrimSpace(out + fmt.Sprintf(" The security changes were approved with the label %q by %s.", p.SecurityApprovalLabel, a.LabelBy))
	}
	return out
}
