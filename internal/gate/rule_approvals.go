package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/reason"
)

// approvalsGiven: every change has the approving reviews
// required-approvals asks for, from a pull request whose review shows it
// (see CountApprovals for which reviews count, and showing for whose).
type approvalsGiven struct{}

func (approvalsGiven) about() about { return about{reason: reason.ApprovalsMissing} }

func (approvalsGiven) check(s *state) *finding {
	p, rv := s.p, s.rv
	enough := func(r Review) bool { return len(r.Approvals.Reviewers) >= p.RequiredApprovals }
	switch {
	case p.RequiredApprovals == 0:
		return nil
	case rv.PR == 0:
		return &finding{title: "Not enough approvals", msg: fmt.Sprintf("required-approvals is %d, but no pull request was found for %s, so no review approves it. Not deploying.",
			p.RequiredApprovals, firstNonEmpty(rv.Commit, "this commit"))}
	case len(rv.Batch) == 0 || len(units(s.cur.Diff)) == 0:
		// One pull request, or no change to answer for: the deployed
		// commit's pull request needs the approvals.
		if enough(rv) {
			return nil
		}
		s.d.Lacking = map[int]string{rv.PR: fmt.Sprintf("It has %s; required-approvals is %d", approvalsOf(rv), p.RequiredApprovals)}
		return &finding{title: "Not enough approvals", msg: fmt.Sprintf("required-approvals is %d, but %s.%s Not deploying.", p.RequiredApprovals, approvalCount(rv), notCounted(rv.Approvals))}
	}
	// A batch: each change answers to the pull requests whose review shows
	// it, and one of them with enough approvals approves it.
	lacking := map[int][]string{}
	for _, u := range units(s.cur.Diff) {
		prs := s.showing(u.key)
		if slices.ContainsFunc(prs, enough) {
			continue
		}
		for _, r := range prs {
			lacking[r.PR] = append(lacking[r.PR], u.what)
		}
	}
	if len(lacking) == 0 {
		return nil
	}
	var counts, changes, ignored []string
	s.d.Lacking = map[int]string{}
	for _, r := range s.rv.all() {
		what := lacking[r.PR]
		if len(what) == 0 {
			continue
		}
		s.d.Lacking[r.PR] = fmt.Sprintf("It has %d of the %d approving reviews required-approvals asks for its changes, which no pull request with enough approvals shows: %s",
			len(r.Approvals.Reviewers), p.RequiredApprovals, named(what))
		counts = append(counts, approvalCount(r))
		changes = append(changes, fmt.Sprintf("pull request #%d: %s", r.PR, named(what)))
		if why := notCounted(r.Approvals); why != "" {
			ignored = append(ignored, fmt.Sprintf(" Pull request #%d:%s", r.PR, why))
		}
	}
	return &finding{title: "Not enough approvals", msg: fmt.Sprintf("required-approvals is %d, but %s; a change is approved by a pull request whose review shows it, and these changes are shown by no pull request with enough approvals (%s).%s Not deploying.",
		p.RequiredApprovals, strings.Join(counts, ", and "), strings.Join(changes, "; "), strings.Join(ignored, ""))}
}

// approvalCount says how many approving reviews of its reviewed head
// pull request r has, and whose.
func approvalCount(r Review) string {
	return fmt.Sprintf("pull request #%d has %s", r.PR, approvalsOf(r))
}

// approvalsOf is approvalCount without the pull request.
func approvalsOf(r Review) string {
	n := len(r.Approvals.Reviewers)
	count := "that count"
	if n == 1 {
		count = "that counts"
	}
	return fmt.Sprintf("%d approving review%s of its reviewed head %s %s (%s)",
		n, plural(n), short(r.HeadSHA), count, firstNonEmpty(strings.Join(r.Approvals.Reviewers, ", "), "none"))
}

// named lists the first changes of what, and how many more there are.
func named(what []string) string {
	const most = 10
	if len(what) <= most {
		return strings.Join(what, "; ")
	}
	return strings.Join(what[:most], "; ") + fmt.Sprintf("; and %d more", len(what)-most)
}

// notCounted says which reviews and labels did not count, and why.
func notCounted(a Approvals) string {
	if len(a.Ignored) == 0 {
		return ""
	}
	return " Not counted: " + strings.Join(a.Ignored, "; ") + "."
}

// showing is the reviews whose reviewed change set shows the change key
// (a unit of cover.go): those whose approvers saw it. When the change set
// is not judged change by change (it is the pull request's own reviewed
// one, or a review holds only fingerprints) or no review shows the change
// (require-reviewed-diff: false let it through), it is the pull request
// the deployed commit came from.
func (s *state) showing(key string) []Review {
	if s.judged() {
		if cov, whole := s.coverage(); whole {
			if prs := cov.By[key]; len(prs) > 0 {
				return s.reviews(prs)
			}
		}
	}
	return []Review{s.rv}
}

// showingRow is showing for a security row: the reviews whose reviewed
// change set holds the same row in the same stack.
func (s *state) showingRow(path, region string, row model.SecurityChange) []Review {
	if !s.judged() {
		return []Review{s.rv}
	}
	key := rowKey(path, region, row)
	var prs []int
	for _, one := range s.rv.all() {
		if one.ChangeSet == nil || one.ChangeSet.Diff == nil {
			return []Review{s.rv} // fingerprints only: the digest alone decided
		}
		one.ChangeSet.Diff.Walk(func(p string, sd model.StackDiff) {
			for _, r := range sd.Security {
				if rowKey(p, sd.Region, r) == key && !slices.Contains(prs, one.PR) {
					prs = append(prs, one.PR)
				}
			}
		})
	}
	if len(prs) == 0 {
		return []Review{s.rv}
	}
	return s.reviews(prs)
}

func rowKey(path, region string, row model.SecurityChange) string {
	return path + "\x00" + region + "\x00" + hashOf(row)
}

// reviews are the reviews of pull requests prs, in rv.all()'s order.
func (s *state) reviews(prs []int) []Review {
	var out []Review
	for _, one := range s.rv.all() {
		if slices.Contains(prs, one.PR) {
			out = append(out, one)
		}
	}
	return out
}

// approvedBy says who approved, for the report of a deploy, and, when the
// inputs ask for approvals, what did not count (a bot's approval, an
// outsider's), even when others sufficed: "" when there is nothing to say.
func approvedBy(p Policy, rv Review, cur Current) string {
	batch := len(rv.Batch) > 0
	var out []string
	for _, one := range rv.all() {
		if a := one.Approvals; len(a.Reviewers) > 0 {
			where := ""
			if batch {
				where = fmt.Sprintf("pull request #%d, ", one.PR)
			}
			out = append(out, fmt.Sprintf("%s (%sreviews of %s)", strings.Join(a.Reviewers, ", "), where, short(one.HeadSHA)))
		}
	}
	var text string
	if len(out) > 0 {
		text = "Approved by " + strings.Join(out, "; ") + "."
	}
	if len(securityRows(p, cur)) > 0 {
		for _, one := range rv.all() {
			switch by := one.Approvals.LabelBy; {
			case by == "":
			case batch:
				text += fmt.Sprintf(" The security changes of pull request #%d were approved with the label %q by %s.", one.PR, p.SecurityApprovalLabel, by)
			default:
				text += fmt.Sprintf(" The security changes were approved with the label %q by %s.", p.SecurityApprovalLabel, by)
			}
		}
	}
	if p.RequiredApprovals > 0 || p.RequireApproval == RequireApprovalBroadening || p.RequireApproval == RequireApprovalAnyChange {
		for _, one := range rv.all() {
			if why := notCounted(one.Approvals); why != "" && batch {
				text += fmt.Sprintf(" Pull request #%d:%s", one.PR, why)
			} else {
				text += why
			}
		}
	}
	return strings.TrimSpace(text)
}

// approvedAtAll: someone approved, by a review, or by the label when it
// approves something (security changes).
func approvedAtAll(p Policy, rv Review, cur Current) bool {
	rows := len(securityRows(p, cur)) > 0
	return slices.ContainsFunc(rv.all(), func(one Review) bool {
		return len(one.Approvals.Reviewers) > 0 || rows && one.Approvals.LabelBy != ""
	})
}

// unapproved names the pull requests nobody approved, for the warning a
// deploy that needed no approval gets; "" when each was approved.
func unapproved(rv Review) string {
	var out []string
	for _, one := range rv.all() {
		if one.PR != 0 && len(one.Approvals.Reviewers) == 0 {
			out = append(out, fmt.Sprintf("no approval on the reviewed head %s of pull request #%d", short(one.HeadSHA), one.PR))
		}
	}
	return strings.Join(out, "; ")
}
