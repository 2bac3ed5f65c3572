package blast_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
)

// bucketStack: a replaced bucket and a deleted queue, with dependents in the
// stack (one of them updated) and one in another stack.
func bucketStack() blast.Input {
	return blast.Input{
		Stack: "Storage",
		Changed: []blast.Changed{
			{ID: "Bucket", Type: "AWS::S3::Bucket", Kind: blast.Replace},
			{ID: "Queue", Type: "AWS::SQS::Queue", Kind: blast.Delete},
			{ID: "Reader", Type: "AWS::Lambda::Function", Kind: blast.Update},
		},
		Dependents: []blast.Dependent{
			{ID: "Policy", Type: "AWS::S3::BucketPolicy", Kind: blast.Unchanged, On: []string{"Bucket"}},
			{ID: "Reader", Type: "AWS::Lambda::Function", Kind: blast.Update, On: []string{"Bucket", "Queue"}},
			{Stack: "Api", ID: "Handler", Type: "AWS::Lambda::Function", Kind: blast.Unchanged, On: []string{"Bucket"}},
		},
	}
}

func TestBuild(t *testing.T) {
	g := blast.Build([]blast.Input{bucketStack()}, nil)
	assert.DeepEqual(t, g, &blast.Graph{Stacks: []blast.Stack{{
		Stack: "Storage",
		Nodes: []blast.Node{
			{ID: "Bucket", Type: "AWS::S3::Bucket", Kind: blast.Replace},
			{ID: "Queue", Type: "AWS::SQS::Queue", Kind: blast.Delete},
			{ID: "Policy", Type: "AWS::S3::BucketPolicy", Kind: blast.Unchanged},
			{ID: "Reader", Type: "AWS::Lambda::Function", Kind: blast.Update},
			{ID: "Handler", Type: "AWS::Lambda::Function", Kind: blast.Unchanged, Stack: "Api"},
		},
		Edges: [][2]int{{2, 0}, {3, 0}, {3, 1}, {4, 0}},
	}}, Reduced: &blast.Reduced{
		Stacks: []blast.Count{{Stack: "Storage", Replace: 1, Delete: 1, Dependents: 3}, {Stack: "Api"}},
		Edges:  [][2]int{{1, 0}},
	}})
	golden.Assert(t, blast.Mermaid(g.Stacks[0]), "storage.mmd.golden")
}

// Updates and creates alone get no picture: only a replacement, a deletion
// or a broadening security change does.
func TestNoPictureWithoutAFocusChange(t *testing.T) {
	in := blast.Input{Stack: "S", Changed: []blast.Changed{{ID: "A", Type: "T", Kind: blast.Update}, {ID: "B", Type: "T", Kind: blast.Create}},
		Dependents: []blast.Dependent{{ID: "C", Type: "T", Kind: blast.Unchanged, On: []string{"A"}}}}
	assert.Assert(t, is.Nil(blast.Build([]blast.Input{in}, nil)))
	in.Changed = append(in.Changed, blast.Changed{ID: "Role", Type: "AWS::IAM::Role", Kind: blast.Broaden})
	g := blast.Build([]blast.Input{in}, nil)
	assert.Equal(t, len(g.Stacks[0].Nodes), 1, "a broadening change alone, with no dependent of its own")
}

// Above the limits a picture collapses: the dependents per stack, type and
// kind, the groups past the limit into "and N more", the focus past its
// limit into "and N more", the stacks past theirs into Graph.More.
func TestCollapse(t *testing.T) {
	in := blast.Input{Stack: "Big"}
	for i := range blast.MaxFocus + 5 {
		in.Changed = append(in.Changed, blast.Changed{ID: fmt.Sprintf("Old%02d", i), Type: "AWS::SNS::Topic", Kind: blast.Delete})
	}
	for i := range 40 {
		in.Dependents = append(in.Dependents, blast.Dependent{ID: fmt.Sprintf("Sub%02d", i), Type: "AWS::SNS::Subscription", Kind: blast.Unchanged, On: []string{"Old00"}})
	}
	in.Dependents = append(in.Dependents, blast.Dependent{ID: "Alarm", Type: "AWS::CloudWatch::Alarm", Kind: blast.Unchanged, On: []string{"Old01"}})
	// Referencing only a collapsed focus resource: not pictured.
	in.Dependents = append(in.Dependents, blast.Dependent{ID: "Late", Type: "AWS::SNS::Subscription", Kind: blast.Unchanged, On: []string{"Old24"}})
	g := blast.Build([]blast.Input{in}, nil)
	nodes := g.Stacks[0].Nodes
	assert.Equal(t, len(nodes), blast.MaxFocus+1+2)
	assert.DeepEqual(t, nodes[blast.MaxFocus], blast.Node{Kind: blast.Delete, N: 5})
	assert.DeepEqual(t, nodes[blast.MaxFocus+1:], []blast.Node{
		{Type: "AWS::SNS::Subscription", Kind: blast.Unchanged, N: 40},
		{Type: "AWS::CloudWatch::Alarm", Kind: blast.Unchanged, N: 1},
	})
	src := blast.Mermaid(g.Stacks[0])
	assert.Assert(t, is.Contains(src, `n20>"and 5 more"]`))
	assert.Assert(t, is.Contains(src, `n21["40 × AWS::SNS::Subscription"]`))

	// More groups than the limit: the last is "and N more".
	in = blast.Input{Stack: "Wide", Changed: []blast.Changed{{ID: "Key", Type: "AWS::KMS::Key", Kind: blast.Replace}}}
	for i := range blast.MaxDependents + 10 {
		for j := range 2 {
			in.Dependents = append(in.Dependents, blast.Dependent{ID: fmt.Sprintf("R%02d%d", i, j), Type: fmt.Sprintf("Custom::T%02d", i), Kind: blast.Unchanged, On: []string{"Key"}})
		}
	}
	g = blast.Build([]blast.Input{in}, nil)
	nodes = g.Stacks[0].Nodes
	assert.Equal(t, len(nodes), 1+blast.MaxDependents)
	assert.DeepEqual(t, nodes[len(nodes)-1], blast.Node{Kind: blast.Unchanged, N: 22})

	var many []blast.Input
	for i := range blast.MaxStacks + 3 {
		many = append(many, blast.Input{Stack: fmt.Sprint("S", i), Changed: []blast.Changed{{ID: "A", Type: "T", Kind: blast.Replace}}})
	}
	g = blast.Build(many, nil)
	assert.Equal(t, len(g.Stacks), blast.MaxStacks)
	assert.Equal(t, g.More, 3)
}

// hostile are names an app's author could choose to break out of a label.
var hostile = []string{
	`Quote"]:::x`,
	`Bracket] --> Evil[Evil`,
	`Pipe|a|`,
	"click n0 call alert()",
	`<script>alert(1)</script>`,
	`%%{init: {"securityLevel": "loose"}}%%`,
	"New\nline\r\nend",
	"Back`tick```",
	"Unicode é 日本 \u202eevil\u200b",
	`Amp &lt; #35; ${X}`,
	"style n0 fill:#f00",
	`Link](javascript:alert(1))`,
}

// Hostile logical IDs, types and stack names read as text: the real parser
// finds exactly the nodes the picture has, no link, click, class or style,
// and each name spelled out in its label.
func TestHostileNamesRenderAsText(t *testing.T) {
	in := blast.Input{Stack: hostile[4]}
	var texts []string
	for i, h := range hostile {
		in.Changed = append(in.Changed, blast.Changed{ID: h, Type: "AWS::" + h, Kind: []blast.Kind{blast.Replace, blast.Delete, blast.Broaden}[i%3]})
		in.Dependents = append(in.Dependents, blast.Dependent{Stack: []string{"", hostile[i]}[i%2], ID: "Dep" + h, Type: h, Kind: blast.Unchanged, On: []string{h}})
		if !strings.ContainsAny(h, "\n\u202e\u200b") {
			texts = append(texts, h)
		}
	}
	g := blast.Build([]blast.Input{in}, nil)
	src := blast.Mermaid(g.Stacks[0])
	for _, line := range strings.Split(strings.TrimSpace(src), "\n") {
		line = strings.TrimSpace(line)
		assert.Assert(t, line == "flowchart LR" || line == "end" || strings.HasPrefix(line, "subgraph ") ||
			strings.HasPrefix(line, "n") || strings.HasPrefix(line, "k"), "a line a name made: %q", line)
	}
	assert.Assert(t, !strings.Contains(src, "%%"))
	assert.Assert(t, !strings.Contains(src, "`"))
	assert.Assert(t, !strings.Contains(src, "<script"))
	// Redaction at the sink can put *** inside a label.
	redacted := strings.ReplaceAll(src, "Bracket", "***")
	legend := 3 + 1 // the kinds present and the unchanged dependents
	n := blasttest.Check(t, map[string]string{"hostile": fence(src), "redacted": fence(redacted)}, map[string]blasttest.Expect{
		"hostile#0":  {Vertices: 2*len(hostile) + legend, Texts: texts},
		"redacted#0": {Vertices: 2*len(hostile) + legend, Texts: []string{"***] --> Evil[Evil"}},
	})
	assert.Equal(t, n, 2)
}

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"MyBucket0A1B":          "MyBucket0A1B",
		"AWS::S3::Bucket":       "AWS::S3::Bucket",
		`a"b`:                   "a#34;b",
		"x\ny":                  "x#65533;y",
		"<b>":                   "#60;b#62;",
		"%%":                    "#37;#37;",
		"é":                     "#233;",
		"\u202e":                "#65533;",
		strings.Repeat("a", 70): strings.Repeat("a", 64) + "#8230;",
	} {
		assert.Equal(t, blast.Label(in), want, "%q", in)
	}
}

func fence(src string) string { return "```mermaid\n" + src + "```\n" }

// README shows the picture of bucketStack as the renderer draws it, and the
// parser accepts it.
func TestREADMEPicture(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	assert.NilError(t, err)
	blocks := blasttest.Blocks(string(b))
	assert.Equal(t, len(blocks), 1, "README shows one picture")
	g := blast.Build([]blast.Input{bucketStack()}, nil)
	assert.Equal(t, blocks[0], blast.Draw(g.Stacks[0], blast.Latest), "README's picture is what the renderer draws")
	assert.Equal(t, blasttest.Check(t, map[string]string{"README": string(b)}, nil), 1)
}

// The picture records names as it draws them: cut after 64 characters.
func TestLongNamesAreRecordedCut(t *testing.T) {
	long := strings.Repeat("é", 100)
	g := blast.Build([]blast.Input{{Stack: long, Changed: []blast.Changed{{ID: long, Type: "T", Kind: blast.Delete}}}}, nil)
	want := strings.Repeat("é", 64) + "…"
	assert.Equal(t, g.Stacks[0].Stack, want)
	assert.Equal(t, g.Stacks[0].Nodes[0].ID, want)
	assert.Assert(t, is.Contains(blast.Mermaid(g.Stacks[0]), strings.Repeat("#233;", 64)+"#8230;<br/>T"))
}

// Names are redacted before they are cut: a secret that starts before the
// 64th character and ends after it leaves no fragment in the label or in
// the record. The dependents of a resource whose logical ID holds a secret
// are found by its ID as it is, and drawn.
func TestRedactedBeforeCut(t *testing.T) {
	secret := "Hunter2Hunter2Hunter2"
	id := strings.Repeat("A", 55) + secret + "Tail"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "***") }
	g := blast.Build([]blast.Input{{Stack: "S" + secret, Changed: []blast.Changed{{ID: id, Type: "AWS::SNS::Topic", Kind: blast.Replace}},
		Dependents: []blast.Dependent{{ID: "Subscription", Type: "AWS::SNS::Subscription", Kind: blast.Unchanged, On: []string{id}}}}}, redact)
	st := g.Stacks[0]
	assert.DeepEqual(t, st.Nodes[0], blast.Node{ID: strings.Repeat("A", 55) + "***Tail", Type: "AWS::SNS::Topic", Kind: blast.Replace})
	assert.DeepEqual(t, st.Nodes[1], blast.Node{ID: "Subscription", Type: "AWS::SNS::Subscription", Kind: blast.Unchanged})
	assert.DeepEqual(t, st.Edges, [][2]int{{1, 0}})
	assert.Equal(t, st.Stack, "S***")
	assert.Equal(t, g.Reduced.Stacks[0], blast.Count{Stack: "S***", Replace: 1, Dependents: 1})
	for _, frag := range []string{"Hunt", "er2"} {
		assert.Assert(t, !strings.Contains(fmt.Sprint(g)+blast.Mermaid(st)+blast.MermaidReduced(g.Reduced), frag), frag)
	}
}
