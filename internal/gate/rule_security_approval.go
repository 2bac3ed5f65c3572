package gate

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// securityApproved: a security change require-approval asks about has an
// approval that counts, a review or the security approval label (see
// CountApprovals).
type securityApproved struct{}

func (securityApproved) about() about { return about{reason: reason.BroadeningRefused} }

func (securityApproved) check(s *state) *finding {
	p, rv := s.p, s.rv
	a := rv.Approvals
	rows := securityRows(p, *s.cur)
	if len(rows) == 0 || a.LabelBy != "" || len(a.Reviewers) > 0 {
		return nil
	}
	const named = 10
	var names []string
	for i, c := range rows {
		if i == named {
			names = append(names, fmt.Sprintf("and %d more", len(rows)-named))
			break
		}
		names = append(names, security.Describe(c)+" in "+security.Where(c))
	}
	what := "broaden access"
	if p.RequireApproval == RequireApprovalAnyChange {
		what = "change access"
	}
	pr := "the pull request"
	if rv.PR != 0 {
		pr = fmt.Sprintf("pull request #%d", rv.PR)
	}
	return &finding{title: "Security changes not approved",
		msg: fmt.Sprintf("%s would %s (require-approval: %s) and nobody but the author approved %s before the merge: %s. Approve with the label %q or an APPROVED review of the reviewed head, by someone other than the author, before merging.%s Not deploying.",
			count(len(rows), "security change"), what, p.RequireApproval, pr, strings.Join(names, "; "), p.SecurityApprovalLabel, notCounted(a))}
}

// securityRows are the security changes require-approval asks about.
func securityRows(p Policy, cur Current) []security.Change {
	var rows []security.Change
	for _, c := range cur.Diff.SecurityChanges() {
		if p.RequireApproval == RequireApprovalAnyChange || p.RequireApproval == RequireApprovalBroadening && c.Broadening() {
			rows = append(rows, c)
		}
	}
	return rows
}
