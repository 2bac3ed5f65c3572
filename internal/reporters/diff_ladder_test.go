package reporters

import (
	"fmt"
	"strconv"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// A diff long enough for each level's caps to bite (the destructive
// callout, the NoEcho note), rendered at every level of the ladder on a
// limited budget: the goldens pin what each level shows.
func TestDiffLadderCaps(t *testing.T) {
	s := model.StackDiff{Stack: "StackA", Region: "us-east-1"}
	for i := range 60 {
		s.Changes = append(s.Changes, model.ResourceChange{LogicalID: fmt.Sprintf("Old%02d", i), ChangeType: model.ChangeDelete, ResourceType: "AWS::SNS::Topic"})
	}
	s.Changes = append(s.Changes, model.ResourceChange{LogicalID: "Topic", ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
		PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: model.StringValue("a"), New: model.StringValue("b")}}})
	for i := range 25 {
		s.NoEchoReaders = append(s.NoEchoReaders, fmt.Sprintf("Reader%02d", i))
	}
	r := report(model.Diff{Stacks: []model.StackDiff{s, {Stack: "StackB", Region: "us-east-1"}}})
	levels, render, _ := diffRenderer(r, CommentBudget)
	for level := range levels {
		t.Run(strconv.Itoa(level), func(t *testing.T) {
			w := NewWriter(Unlimited)
			render(w, level)
			golden.Assert(t, w.String(), fmt.Sprintf("diff-caps-level-%d.golden", level))
		})
	}
}
