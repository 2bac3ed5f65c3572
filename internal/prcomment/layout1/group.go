package layout1

import "strconv"

// A merge queue's check (verify) reports as a deploy report whose Group
// is set: the gate's decision on the group's head, nothing deployed, and
// each pull request of the group with what is wrong with its review.

// groupHeadline is the one-line outcome of a merge queue's check.
func groupHeadline(r DeployReport) string {
	switch r.Outcome {
	case OutcomeVerified:
		return "Every change of the group is reviewed"
	case OutcomeRefused:
		return "Group refused: " + r.Title
	case OutcomeCancelled:
		return "Merge queue check cancelled"
	}
	if r.Title != "" {
		return "Merge queue check failed: " + r.Title
	}
	return "Merge queue check failed"
}

func (x *deployWriter) groupHeadline() {
	icon := "❌"
	switch x.r.Outcome {
	case OutcomeVerified:
		icon = "✅"
	case OutcomeRefused:
		icon = "⛔"
	case OutcomeCancelled:
		icon = "🛑"
	}
	x.w.Block()
	x.w.Write(icon, " **", Text(groupHeadline(*x.r)), "**")
	if x.r.SHA != "" {
		x.w.Write(" at ", Code(ShortSHA(x.r.SHA)))
	}
	x.w.WriteString("\n")
	lead := ""
	if x.r.Outcome == OutcomeRefused {
		lead = "The deploy of this group would be refused, so the merge queue removes it: "
	}
	x.message(lead)
}

// group lists the group's pull requests.
func (x *deployWriter) group() {
	g := x.r.Group
	if g == nil {
		return
	}
	x.w.Block()
	x.w.WriteString("#### Pull requests in the group")
	if g.Branch != "" {
		x.w.Write(" (into ", nameCode(g.Branch), ")")
	}
	x.w.WriteString("\n")
	x.w.Block()
	if len(g.PullRequests) == 0 {
		x.w.WriteString("None found: no open pull request has its head among the group's commits.\n")
		return
	}
	for _, p := range g.PullRequests {
		if x.w.Over() {
			return
		}
		x.w.Write("- ", Code("#"+strconv.Itoa(p.Number)))
		if p.ReviewedSHA != "" {
			x.w.Write(" reviewed at ", Code(ShortSHA(p.ReviewedSHA)))
		}
		if p.Reason == "" {
			x.w.WriteString(": ✅ its review passes the gate's rules\n")
			continue
		}
		msg, _ := cutRunes(p.Problem, reasonMax)
		x.w.Write(": ⛔ ", Code(p.Reason), " ", Text(msg), "\n")
	}
}
