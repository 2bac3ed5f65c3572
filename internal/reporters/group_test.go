package reporters

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// A merge queue's check reads as one: its own title and headline, every
// pull request of the group with its review's standing, and no deploy
// words a reader could take for a deploy that ran.
func TestGroupReport(t *testing.T) {
	group := &model.GroupCheck{Branch: "main", PullRequests: []model.GroupPullRequest{
		{Number: 8, ReviewedSHA: "8888888888"},
		{Number: 9, ReviewedSHA: "2929292929", Reason: "stale-review", Problem: "The diff on pull request #9 was reviewed at 2929292, but its final head is 7777777 <b>."},
	}}
	refused := DeployReport{Label: "prod", Outcome: OutcomeRefused, Title: "Review is stale", Message: "The diff on pull request #9 was reviewed at 2929292: not deploying.",
		Reason: "stale-review", SHA: "5050505050", Group: group}
	md := DeployMarkdown(refused, Unlimited)
	for _, want := range []string{
		"### cdkd merge queue (prod)\n",
		"⛔ **Group refused: Review is stale** at `5050505`",
		"The deploy of this group would be refused, so the merge queue removes it: ",
		"#### Pull requests in the group (into `main`)",
		"- `#8` reviewed at `8888888`: ✅ its review passes the gate's rules",
		"- `#9` reviewed at `2929292`: ⛔ `stale-review` The diff on pull request <code>&#35;9</code> was reviewed at 2929292, but its final head is 7777777 &lt;b&gt;.",
		"group head `5050505`",
	} {
		assert.Assert(t, is.Contains(md, want))
	}
	assert.Assert(t, !strings.Contains(md, "Deploy refused"), md)
	assert.Equal(t, DeployHeadline(refused), "Group refused: Review is stale")

	verified := refused
	verified.Outcome, verified.Title, verified.Message, verified.Reason = OutcomeVerified, "", "Every change is one reviewed in pull requests #8 and #9.", ""
	md = DeployMarkdown(verified, Unlimited)
	assert.Assert(t, is.Contains(md, "✅ **Every change of the group is reviewed** at `5050505`"))
	assert.Assert(t, !strings.Contains(md, "would be refused"), md)
	assert.Equal(t, DeployHeadline(verified), "Every change of the group is reviewed")
	assert.Assert(t, len(DeployMarkdown(verified, CheckRunBudget)) <= 65535)
}
