package blast_test

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/blast"
	"github.com/cdkd-action/cdkd-action/internal/blast/blasttest"
)

// luminance is a colour's relative luminance (WCAG 2).
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	assert.Assert(t, len(hex) == 7 && hex[0] == '#', hex)
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		assert.NilError(t, err)
		c := float64(v) / 255
		if c <= 0.04045 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}

func contrast(t *testing.T, a, b string) float64 {
	t.Helper()
	la, lb := luminance(t, a), luminance(t, b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// Replaced and deleted nodes have fixed colours whose text reads against
// their fill at 4.5:1 at least (the fill is opaque, so on GitHub's light
// and dark backgrounds alike), and differ from each other by fill, not by
// outline alone; tools/mermaid-check allows exactly these definitions.
func TestClassesAreFixedAndReadable(t *testing.T) {
	check, err := os.ReadFile("../../tools/mermaid-check/check.mjs")
	assert.NilError(t, err)
	fills := map[string]bool{}
	for _, c := range blast.ClassDefs {
		assert.Assert(t, contrast(t, c.Color, c.Fill) >= 4.5, "%s: %.2f", c.Name, contrast(t, c.Color, c.Fill))
		for _, page := range []string{"#ffffff", "#0d1117"} {
			assert.Assert(t, contrast(t, c.Color, c.Fill) >= 4.5, "%s on %s", c.Name, page)
		}
		assert.Assert(t, !fills[c.Fill], "%s has a fill of its own", c.Name)
		fills[c.Fill] = true
		assert.Assert(t, is.Contains(string(check), "'"+c.Line()+"'"), "mermaid-check allows %s as ClassDefs defines it", c.Name)
	}
	src := blast.Draw(blast.Build([]blast.Input{bucketStack()}, nil).Stacks[0], blast.Latest)
	assert.Assert(t, is.Contains(src, "  class n0,k0 replaced\n"))
	assert.Assert(t, is.Contains(src, "  class n1,k1 deleted\n"))
	assert.Assert(t, !strings.Contains(blast.Mermaid(blast.Build([]blast.Input{bucketStack()}, nil).Stacks[0]), "class"), "older layouts draw no class")
}

// The checker allows the fixed classes and nothing else: another class, a
// fixed class defined otherwise, a style line or a class line naming
// anything but generated ids is refused.
func TestCheckerAllowsOnlyTheFixedClasses(t *testing.T) {
	ours := blast.Draw(blast.Build([]blast.Input{bucketStack()}, nil).Stacks[0], blast.Latest)
	got := blasttest.Verdicts(t, map[string]string{
		"ours":       ours,
		"other":      ours + "  classDef evil fill:#f00\n  class n2 evil\n",
		"redefined":  strings.Replace(ours, "fill:#fde68a", "fill:#ff0000", 1),
		"style":      ours + "  style n2 fill:#f00\n",
		"class-line": ours + "  class Bucket replaced\n",
	})
	assert.Equal(t, got["ours"], "")
	for _, name := range []string{"other", "redefined", "style", "class-line"} {
		assert.Assert(t, got[name] != "", name)
	}
}

// Mermaid strips the last ';' of a line that looks like a style or
// classDef line ("style ...:...#...;"), which would garble the entity code
// it ends. Layout 4 writes ':' in labels as an entity code, so no line of
// ours has that form, and hostile names read as text through the parser.
func TestLabelsSurviveSemicolonStripping(t *testing.T) {
	names := append([]string{"style n0 fill:#f00 <b>", "classDef x fill:#f00;", "MyStyle:#1 é", "style:a#b;c\"d"}, hostile...)
	in := blast.Input{Stack: "style s:#0 <x>"}
	var texts []string
	for _, h := range names {
		in.Changed = append(in.Changed, blast.Changed{ID: h, Type: "AWS::" + h, Kind: blast.Replace})
		if !strings.ContainsAny(h, "\n\u202e\u200b") {
			texts = append(texts, h, "AWS::"+h)
		}
	}
	g := blast.Build([]blast.Input{in}, nil)
	src := blast.Draw(g.Stacks[0], blast.Latest)
	for _, line := range strings.Split(src, "\n") {
		assert.Assert(t, !strings.Contains(line, ":") || strings.HasPrefix(strings.TrimSpace(line), "classDef "), "a line Mermaid could strip: %q", line)
	}
	n := blasttest.Check(t, map[string]string{"semicolons": fence(src)}, map[string]blasttest.Expect{
		"semicolons#0": {Vertices: len(g.Stacks[0].Nodes) + 1, Texts: texts},
	})
	assert.Equal(t, n, 1)
}
