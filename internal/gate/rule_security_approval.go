package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
	"github.com/cdkd-action/cdkd-action/internal/security"
)

// securityApproved: each security change require-approval asks about has
// an approval that counts (a review or the security approval label, see
// CountApprovals) on a pull request whose review shows it.
type securityApproved struct{}

func (securityApproved) about() about { return about{reason: reason.BroadeningRefused} }

func (securityApproved) check(s *state) *finding {
	p, rv := s.p, s.rv
	var rows []security.Change
	var lacking []int // the pull requests of the rows nobody approved
	s.cur.Diff.Walk(func(path string, sd model.StackDiff) {
		for _, c := range sd.Security {
			if !asked(p, c) {
				continue
			}
			prs := s.showingRow(path, sd.Region, c)
			if slices.ContainsFunc(prs, func(r Review) bool { return r.Approvals.Approved() }) {
				continue
			}
			rows = append(rows, c)
			for _, r := range prs {
				if !slices.Contains(lacking, r.PR) {
					lacking = append(lacking, r.PR)
				}
			}
		}
	})
	if len(rows) == 0 {
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
	slices.Sort(lacking)
	s.d.Lacking = map[int]string{}
	for _, n := range lacking {
		s.d.Lacking[n] = "No approval that counts covers the security changes its review shows"
	}
	pr := "the pull request"
	switch {
	case len(rv.Batch) > 0 && len(lacking) == 1:
		pr = prList(lacking) + ", whose review shows them,"
	case len(rv.Batch) > 0:
		pr = prList(lacking) + ", whose reviews show them,"
	case rv.PR != 0:
		pr = fmt.Sprintf("pull request #%d", rv.PR)
	}
	var why string
	for _, one := range s.reviews(lacking) {
		if w := notCounted(one.Approvals); w != "" && len(rv.Batch) > 0 {
			why += fmt.Sprintf(" Pull request #%d:%s", one.PR, w)
		} else {
			why += w
		}
	}
	return &finding{title: "Security changes not approved",
		msg: fmt.Sprintf("%s would %s (require-approval: %s) and %s had no approval that counts before the merge: %s. Approve with the label %q or an APPROVED review of the reviewed head, after the diff posted its review and before merging, by a person with write access to the repository other than the author and the pusher of that head.%s Not deploying.",
			count(len(rows), "security change"), what, p.RequireApproval, pr, strings.Join(names, "; "), p.SecurityApprovalLabel, why)}
}

// asked: require-approval asks about row c.
func asked(p Policy, c security.Change) bool {
	return p.RequireApproval == RequireApprovalAnyChange || p.RequireApproval == RequireApprovalBroadening && c.Broadening()
}

// securityRows are the security changes require-approval asks about.
func securityRows(p Policy, cur Current) []security.Change {
	var rows []security.Change
	for _, c := range cur.Diff.SecurityChanges() {
		if asked(p, c) {
			rows = append(rows, c)
		}
	}
	return rows
}
