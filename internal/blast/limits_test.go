package blast_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
)

// The checker measures what parsing alone lets through: a picture longer
// than Mermaid's maxTextSize, and one with more than maxEdges edges, are
// refused; one at each limit passes.
func TestCheckerMeasuresTheLimits(t *testing.T) {
	chain := func(edges int) string {
		var b strings.Builder
		b.WriteString("flowchart LR\n")
		for i := range edges {
			b.WriteString("  n" + strconv.Itoa(i) + " --> n" + strconv.Itoa(i+1) + "\n")
		}
		return b.String()
	}
	long := func(chars int) string {
		src := "flowchart LR\n  n0[\"\"]\n"
		return strings.Replace(src, `""`, `"`+strings.Repeat("a", chars-len(src))+`"`, 1)
	}
	assert.Equal(t, len(long(blast.MaxText)), blast.MaxText)
	got := blasttest.Verdicts(t, map[string]string{
		"edges-at": chain(blast.MaxEdges), "edges-over": chain(blast.MaxEdges + 1),
		"text-at": long(blast.MaxText), "text-over": long(blast.MaxText + 1),
	})
	assert.Equal(t, got["edges-at"], "")
	assert.Equal(t, got["text-at"], "")
	assert.Assert(t, is.Contains(got["edges-over"], "Edge limit exceeded"))
	assert.Assert(t, is.Contains(got["text-over"], "maxTextSize"))
}

// dense is 20 replaced subnets, each referenced by every one of 30
// functions: 600 references, more edges than Mermaid draws.
func dense() blast.Input {
	in := blast.Input{Stack: "Network"}
	var subnets []string
	for i := range 20 {
		id := fmt.Sprintf("Subnet%02d", i)
		subnets = append(subnets, id)
		in.Changed = append(in.Changed, blast.Changed{ID: id, Type: "AWS::EC2::Subnet", Kind: blast.Replace})
	}
	for i := range 30 {
		in.Dependents = append(in.Dependents, blast.Dependent{ID: fmt.Sprintf("Function%02d", i), Type: "AWS::Lambda::Function", Kind: blast.Unchanged, On: subnets})
	}
	return in
}

// A picture keeps within Mermaid's limits by construction: the dense set
// names fewer resources until its edges fit, and names that escape to many
// characters each are collapsed until its text fits. The real parser draws
// both, and each still shows its changes.
func TestPictureWithinMermaidsLimits(t *testing.T) {
	g := blast.Build([]blast.Input{dense()}, nil)
	st := g.Stacks[0]
	assert.Assert(t, len(st.Edges) <= blast.MaxEdges && len(st.Edges) > 200, "%d edges", len(st.Edges))
	assert.Assert(t, st.Fits())

	// Every name 64 characters that each escape to 9 (#128512;).
	name := strings.Repeat("😀", 64)
	wide := blast.Input{Stack: "Wide"}
	for i := range blast.MaxFocus {
		wide.Changed = append(wide.Changed, blast.Changed{ID: fmt.Sprint(i, name), Type: name, Kind: blast.Delete})
	}
	for i := range blast.MaxDependents {
		wide.Dependents = append(wide.Dependents, blast.Dependent{Stack: fmt.Sprint(i%3, name), ID: fmt.Sprint(i, name), Type: fmt.Sprint(i, name), Kind: blast.Unchanged, On: []string{fmt.Sprint(i%blast.MaxFocus, name)}})
	}
	w := blast.Build([]blast.Input{wide}, nil)
	src := blast.Mermaid(w.Stacks[0])
	assert.Assert(t, len(src) <= blast.MaxText, "%d characters", len(src))
	assert.Assert(t, len(w.Stacks[0].Nodes) > 10, "collapsed no more than it needs: %d nodes", len(w.Stacks[0].Nodes))
	assert.Assert(t, is.Contains(src, "more\""), "what is not named is counted")

	n := blasttest.Check(t, map[string]string{"dense": fence(blast.Mermaid(st)), "wide": fence(src)},
		map[string]blasttest.Expect{"dense#0": {Vertices: -1, Texts: []string{"Subnet00", "Function00"}}})
	assert.Equal(t, n, 2)
}
