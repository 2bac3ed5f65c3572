package reporters

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// A report with every part long enough for each level's caps and cuts to
// bite, rendered at every level of the ladder: the goldens pin what each
// level shows.
func TestDeployLevels(t *testing.T) {
	var reviewed, current model.Diff
	rs := model.StackDiff{Stack: "StackA", Region: "us-east-1"}
	cs := rs
	for i := range 30 {
		id := fmt.Sprintf("Topic%02d", i)
		rs.Changes = append(rs.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
			PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: model.StringValue("a"), New: model.StringValue("b")}}})
		cs.Changes = append(cs.Changes, model.ResourceChange{LogicalID: id, ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
			PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: model.StringValue("a"), New: model.StringValue("c")}}})
	}
	reviewed.Stacks, current.Stacks = []model.StackDiff{rs}, []model.StackDiff{cs}
	cmp := model.Compare(reviewed, current)

	r := deployBase(OutcomePartial)
	r.Reason, r.Title, r.Message = "partial", "Partially deployed", "cdkd left resources unaddressed."
	r.Comparison = &cmp
	for i := range 25 {
		r.Destructive = append(r.Destructive, DestructiveChange{Stack: "StackA", LogicalID: "Old" + strconv.Itoa(i), Type: "AWS::SNS::Topic", Action: model.ActionDelete, AllowedBy: "allow-destructive"})
	}
	s := DeployedStack{Stack: "StackA", Region: "us-east-1", Result: "FAILED", Updated: 10, Failed: 2, Duration: "3s",
		Outputs: []StackOutput{{Name: "Long", Value: strings.Repeat("v", 400)}, {Name: "Token", Value: "x", Secret: true}}}
	for i := range 12 {
		res := DeployedResource{LogicalID: "Res" + strconv.Itoa(i), Type: "AWS::SNS::Topic", Result: "updated"}
		if i%5 == 0 {
			res.Result, res.Error = "failed", strings.Repeat("e", 1200)
		}
		s.Resources = append(s.Resources, res)
	}
	r.Stacks = []DeployedStack{s, {Stack: "StackB", Region: "us-east-1", Unchanged: 3}}
	for i := range 30 {
		r.StderrTail = append(r.StderrTail, fmt.Sprintf("stderr line %d %s", i, strings.Repeat("x", 1100)))
	}
	note := CommentBudget.ShortenedNote(r.FullReportHint)
	for level := range deployLevels {
		t.Run(strconv.Itoa(level), func(t *testing.T) {
			w := NewWriter(Unlimited)
			x := deployWriter{r: &r, w: w, lv: deployLadder[level], limited: true, note: note}
			x.report()
			golden.Assert(t, w.String(), fmt.Sprintf("deploy-level-%d.golden", level))
		})
	}
}
