package reporters

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// pictured is a diff with a replacement and a deletion that resources in
// the stack and in another stack reference, and its picture.
func pictured() (model.Diff, *blast.Graph) {
	d := model.Diff{Stacks: []model.StackDiff{
		{Stack: "Storage", Region: "us-east-1", Changes: []model.ResourceChange{
			{LogicalID: "Bucket", ChangeType: model.ChangeUpdate, ResourceType: "AWS::S3::Bucket",
				PropertyChanges: []model.PropertyChange{{Path: "BucketName", Old: model.StringValue("a"), New: model.StringValue("b"), RequiresReplacement: true}}},
			{LogicalID: "Queue", ChangeType: model.ChangeDelete, ResourceType: "AWS::SQS::Queue"},
			{LogicalID: "Reader", ChangeType: model.ChangeUpdate, ResourceType: "AWS::Lambda::Function",
				PropertyChanges: []model.PropertyChange{{Path: "Timeout", Old: model.StringValue("3"), New: model.StringValue("5")}}},
		}},
		{Stack: "Api", Region: "us-east-1"},
	}}
	g := blast.Build([]blast.Input{{
		Stack:   "Storage",
		Changed: []blast.Changed{{ID: "Bucket", Type: "AWS::S3::Bucket", Kind: blast.Replace}, {ID: "Queue", Type: "AWS::SQS::Queue", Kind: blast.Delete}},
		Dependents: []blast.Dependent{
			{ID: "Policy", Type: "AWS::S3::BucketPolicy", Kind: blast.Unchanged, On: []string{"Bucket"}},
			{ID: "Reader", Type: "AWS::Lambda::Function", Kind: blast.Update, On: []string{"Bucket", "Queue"}},
			{Stack: "Api", ID: "Handler", Type: "AWS::Lambda::Function", Kind: blast.Unchanged, On: []string{"Bucket"}},
		},
	}}, nil)
	return d, g
}

// The picture shows at full fidelity, after the callouts and before the
// stacks; the parser accepts it as the report writes it.
func TestDiffPicture(t *testing.T) {
	d, g := pictured()
	r := report(d)
	r.Picture = g
	md := DiffMarkdown(r, CommentBudget)
	golden.Assert(t, md, "diff-picture.golden")
	assert.Assert(t, strings.Index(md, "🗺️") > strings.Index(md, "Destructive changes"))
	assert.Assert(t, strings.Index(md, "🗺️") < strings.Index(md, "<details"))
	// A channel that does not show it says where it is.
	r.Picture, r.PictureIn, r.PictureShown = nil, "the PR comment", PictureDrawn
	other := DiffMarkdown(r, CheckRunBudget)
	assert.Assert(t, is.Contains(other, "🗺️ The picture of what the changes touch is in the PR comment.\n"))
	assert.Assert(t, !strings.Contains(other, "```mermaid"))
	assert.Equal(t, blasttest.Check(t, map[string]string{"comment": md}, nil), 1)
}

// The picture is a view: it goes before any change line does. A budget
// the report fits without it gets every change line and no picture (as
// layout 3 wrote it; layout 4 draws the reduced picture there).
func TestDiffPictureDroppedFirst(t *testing.T) {
	d, g := pictured()
	r := report(d)
	r.Layout = Layout3
	without := DiffMarkdown(r, Unlimited)
	r.Picture = g
	with := DiffMarkdown(r, Unlimited)
	assert.Assert(t, len(with) > len(without)+500)
	b := Budget{MaxChars: len(without) + 300, Channel: "the PR comment"}
	md := DiffMarkdown(r, b)
	assert.Assert(t, b.Fits(md))
	assert.Assert(t, !strings.Contains(md, "```mermaid"))
	assert.Assert(t, is.Contains(md, "🗺️ The picture of what the changes touch is left out to fit.\n"))
	for _, line := range []string{"`Bucket`", "`Queue`", "`Reader`", "Timeout", "BucketName"} {
		assert.Assert(t, is.Contains(md, line))
	}
	assert.Assert(t, is.Contains(md, "Report shortened"))

	// Every level past the first drops it.
	levels, render, _ := diffRenderer(r, CommentBudget)
	for level := range levels {
		w := NewWriter(Unlimited)
		render(w, level)
		assert.Equal(t, strings.Contains(w.String(), "```mermaid"), level == levelFull, fmt.Sprint("level ", level))
	}
}

// From layout 4 on, a report too long for the full picture draws the
// reduced one, one node per stack, with every change line; only the last
// level, a headline, says the picture was left out. The parser draws it.
func TestDiffReducedPicture(t *testing.T) {
	d, g := pictured()
	r := report(d)
	r.Picture = g
	full := DiffMarkdown(r, Unlimited)
	assert.Equal(t, PictureShown(full), PictureDrawn)
	b := Budget{MaxChars: utf8.RuneCountInString(full) - 1, Channel: "the PR comment"}
	md := DiffMarkdown(r, b)
	assert.Assert(t, b.Fits(md))
	assert.Equal(t, PictureShown(md), PictureReduced)
	assert.Assert(t, is.Contains(md, "one node per stack:** the full picture does not fit this report"))
	for _, line := range []string{"`Bucket`", "`Queue`", "`Reader`", "Timeout", "BucketName"} {
		assert.Assert(t, is.Contains(md, line))
	}
	levels, render, _ := diffRenderer(r, CommentBudget)
	w := NewWriter(Unlimited)
	render(w, levels-1)
	assert.Equal(t, PictureShown(w.String()), PictureLeftOut)
	assert.Equal(t, blasttest.Check(t, map[string]string{"comment": md}, map[string]blasttest.Expect{
		"comment#0": {Vertices: 2 + 2, Texts: []string{"stack Storage", "1 replaced, 1 deleted", "referenced by 3 resources", "stack Api", "depends on a change"}},
	}), 1)
}
