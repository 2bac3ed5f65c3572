package prcomment

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/reporters"
)

// widest is the largest picture Build makes: every stack at its limits,
// every name long and of characters the header's JSON escapes.
func widest() *blast.Graph {
	var in []blast.Input
	name := strings.Repeat("<", 300)
	for s := range blast.MaxStacks {
		st := blast.Input{Stack: fmt.Sprint(s, name)}
		for i := range blast.MaxFocus {
			st.Changed = append(st.Changed, blast.Changed{ID: fmt.Sprint(i, name), Type: name, Kind: blast.Replace})
		}
		for i := range blast.MaxDependents {
			st.Dependents = append(st.Dependents, blast.Dependent{ID: fmt.Sprint("d", i, name), Type: name, Kind: blast.Unchanged, On: []string{fmt.Sprint(0, name)}})
		}
		in = append(in, st)
	}
	return blast.Build(in, nil)
}

// The picture's record is bounded whatever the names, comes off the
// report's budget, and the whole comment stays within GitHub's limit; the
// deploy renders it again from the header alone.
func TestPictureRecordWithinTheComment(t *testing.T) {
	g := FitPicture(widest())
	assert.Assert(t, len(g.Stacks) < blast.MaxStacks, "the widest picture does not fit whole")
	assert.Assert(t, g.Reduced != nil && len(g.Reduced.Stacks) > 0, "its reduced picture does")
	small := blast.Build([]blast.Input{{Stack: "S", Changed: []blast.Changed{{ID: "Bucket", Type: "AWS::S3::Bucket", Kind: blast.Replace}},
		Dependents: []blast.Dependent{{ID: "Policy", Type: "AWS::S3::BucketPolicy", Kind: blast.Unchanged, On: []string{"Bucket"}}}}}, nil)
	assert.DeepEqual(t, FitPicture(small), small)

	// A picture of many stacks keeps those that fit, and says how many more.
	var in []blast.Input
	for s := range blast.MaxStacks {
		st := blast.Input{Stack: fmt.Sprint("Stack", s)}
		for i := range blast.MaxFocus {
			st.Changed = append(st.Changed, blast.Changed{ID: fmt.Sprintf("Resource%02dWithALongGeneratedName0A1B2C3D", i), Type: "AWS::Lambda::Function", Kind: blast.Delete})
		}
		in = append(in, st)
	}
	many := FitPicture(blast.Build(in, nil))
	assert.Assert(t, len(many.Stacks) > 0 && len(many.Stacks) < blast.MaxStacks)
	assert.Equal(t, len(many.Stacks)+many.More, blast.MaxStacks)

	d := sampleDiff(t)
	h := WithPicture(marker.Header{V: 1, Kind: KindDiff, Digest: d.Digest(), Render: RendererVersion}, many)
	without := ReportBudget(reporters.CommentBudget, marker.Header{}, "")
	with := ReportBudget(reporters.CommentBudget, h, "")
	assert.Equal(t, without.MaxChars-with.MaxChars, utf8.RuneCountInString(h.String())-utf8.RuneCountInString(marker.Header{V: 1, Kind: KindDiff, Digest: d.Digest(), Render: RendererVersion}.String()))

	line := EncodeChangeSet(d, 20000, nil)
	c := Comment{Header: h, ChangeSet: line, Report: CurrentRenderer().Report(h, line, d, true, reporters.CommentBudget)}
	assert.Assert(t, utf8.RuneCountInString(c.String()) <= MaxChars-redactorRoom)
	// The stacks that fit, and every stack at one node each.
	assert.Equal(t, blasttest.Check(t, map[string]string{"comment": c.String()}, nil), len(many.Stacks)+1)
	back, ok := Parse(c.String())
	assert.Assert(t, ok)
	cs, err := DecodeChangeSet(c.String(), h.Digest)
	assert.NilError(t, err)
	assert.NilError(t, back.VerifyReport(cs, reporters.CommentBudget, nil))

	// Without its record, the report no longer renders to what was read.
	back.Header.Picture = nil
	assert.Assert(t, errors.Is(back.VerifyReport(cs, reporters.CommentBudget, nil), ErrReportEdited))
}

// When not even one stack's full picture fits the header's record (names
// that escape to many bytes), the comment draws the reduced picture, one
// node per stack, and says why; the parser reads each stack's name in it.
func TestReducedPictureWhenNoStackFits(t *testing.T) {
	name := strings.Repeat("<", 60)
	var in []blast.Input
	for s := range 3 {
		st := blast.Input{Stack: fmt.Sprint("Stack", s, name)}
		for i := range blast.MaxFocus {
			st.Changed = append(st.Changed, blast.Changed{ID: fmt.Sprint(i, name), Type: name, Kind: blast.Replace})
		}
		for i := range blast.MaxDependents {
			st.Dependents = append(st.Dependents, blast.Dependent{Stack: "Api", ID: fmt.Sprint("d", i, name), Type: name, Kind: blast.Unchanged, On: []string{fmt.Sprint(0, name)}})
		}
		in = append(in, st)
	}
	g := FitPicture(blast.Build(in, nil))
	assert.Equal(t, len(g.Stacks), 0)
	assert.Equal(t, len(g.Reduced.Stacks), 4)
	d := sampleDiff(t)
	h := WithPicture(marker.Header{V: 1, Kind: KindDiff, Digest: d.Digest(), Render: RendererVersion}, g)
	line := EncodeChangeSet(d, 20000, nil)
	c := Comment{Header: h, ChangeSet: line, Report: CurrentRenderer().Report(h, line, d, true, reporters.CommentBudget)}
	assert.Equal(t, reporters.PictureShown(c.Report), reporters.PictureReduced)
	assert.Assert(t, strings.Contains(c.Report, "one node per stack:** the full picture does not fit the comment's record"))
	assert.Equal(t, blasttest.Check(t, map[string]string{"comment": c.String()}, map[string]blasttest.Expect{
		"comment#0": {Vertices: 4 + 2, Texts: []string{"stack Stack0" + name[:58] + "…", "20 replaced", "stack Api"}},
	}), 1)
}
