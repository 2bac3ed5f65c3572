package reporters

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func l30(c string) string { return strings.Repeat(c, 30) }

func TestLineDiffRender(t *testing.T) {
	long := strings.Repeat("x", 600)
	tests := []struct {
		name     string
		old, cur string
		limit    int
		short    bool
		want     string
		cut      bool
	}{
		{
			name: "context around a change",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n9", cur: "1\n2\n3\n4\nfive\n6\n7\n8\n9",
			want: "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "hunks apart",
			old:  "a\n1\n2\n3\n4\n5\n6\n7\nb", cur: "A\n1\n2\n3\n4\n5\n6\n7\nB",
			want: "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n",
		},
		{
			name: "hunks whose context touches merge",
			old:  "a\n1\n2\n3\n4\n5\n6\nb", cur: "A\n1\n2\n3\n4\n5\n6\nB",
			want: "@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n",
		},
		{
			name: "pure addition",
			old:  "a\nb", cur: "a\nb\nc",
			want: "@@ -1,2 +1,3 @@\n a\n b\n+c\n",
		},
		{
			name: "a final newline both have makes no line",
			old:  "a\nb\n", cur: "a\nc\n",
			want: "@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		},
		{
			name: "a final newline only one has shows",
			old:  "a\nb", cur: "a\nb\n",
			want: "@@ -1,2 +1,3 @@\n a\n b\n+\n",
		},
		{
			name: "context given up first",
			old:  "1\n2\n3\n4\n5\n6\n7", cur: "1\n2\n3\nfour\n5\n6\n7", limit: 21,
			want: "@@ -4 +4 @@\n-4\n+four\n", cut: true,
		},
		{
			name: "an empty side is numbered by the line before",
			old:  "1\n2\n3\n4\n5\n6\n7", cur: "1\n2\n3\n4\n5\n6\n7\n8", limit: 17,
			want: "@@ -7,0 +8 @@\n+8\n", cut: true,
		},
		{
			name: "long context lines cut before context is given up",
			old:  long + "\na\n" + long, cur: long + "\nb\n" + long, limit: 300,
			want: "@@ -1,3 +1,3 @@\n " + strings.Repeat("x", InlineMax) + " … (520 more characters)\n-a\n+b\n " + strings.Repeat("x", InlineMax) + " … (520 more characters)\n",
			cut:  true,
		},
		{
			name: "changed lines cut only without context",
			old:  "ctx\n" + long, cur: "ctx\n" + long + "y", limit: 1100,
			want: "@@ -2 +2 @@\n-" + strings.Repeat("x", diffLineCut) + " … (100 more characters)\n+" + strings.Repeat("x", diffLineCut) + " … (101 more characters)\n",
			cut:  true,
		},
		{
			name: "changed lines left out are counted",
			old:  "aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\ndddddddddd", cur: "AAAAAAAAAA\nBBBBBBBBBB\nCCCCCCCCCC\nDDDDDDDDDD", limit: 100,
			want: "@@ -1,4 +1,4 @@\n-aaaaaaaaaa\n… 7 more changed lines not shown (3 removed, 4 added)\n",
			cut:  true,
		},
		{
			name: "each side of a run keeps its first lines",
			old:  "aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\ndddddddddd", cur: "AAAAAAAAAA\nBBBBBBBBBB\nCCCCCCCCCC\nDDDDDDDDDD", limit: 104,
			want: "@@ -1,4 +1,4 @@\n-aaaaaaaaaa\n… 3 more removed lines not shown\n+AAAAAAAAAA\n… 3 more added lines not shown\n",
			cut:  true,
		},
		{
			name: "as many as fit",
			old:  strings.Join([]string{l30("a"), l30("b"), l30("c"), l30("d")}, "\n"),
			cur:  strings.Join([]string{l30("A"), l30("B"), l30("C"), l30("D")}, "\n"), limit: 220,
			want: "@@ -1,4 +1,4 @@\n-" + l30("a") + "\n-" + l30("b") + "\n… 2 more removed lines not shown\n+" + l30("A") + "\n+" + l30("B") + "\n… 2 more added lines not shown\n",
			cut:  true,
		},
		{
			name: "nothing fits: all counted",
			old:  "a", cur: "b", limit: 10,
			want: "… 2 more changed lines not shown (1 removed, 1 added)\n", cut: true,
		},
		{
			name: "short: no context, lines cut",
			old:  "1\n2\n" + long, cur: "1\n2\n" + long + "z", short: true, limit: shortDiffMax,
			want: "@@ -3 +3 @@\n-" + strings.Repeat("x", InlineMax) + " … (520 more characters)\n+" + strings.Repeat("x", InlineMax) + " … (521 more characters)\n",
			cut:  true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := newLineDiff(tc.old, tc.cur)
			assert.Assert(t, ok)
			got, cut := d.render(tc.limit, diffStyles(tc.short))
			assert.Equal(t, got, tc.want)
			assert.Equal(t, cut, tc.cut)
		})
	}
}

func TestNewLineDiffNothingDiffers(t *testing.T) {
	for _, tc := range [][2]string{{"a\nb", "a\nb"}, {"", ""}, {"a\n", "a\n"}} {
		_, ok := newLineDiff(tc[0], tc[1])
		assert.Assert(t, !ok, "%q", tc)
	}
}

// However small the limit, every changed line is shown or counted, and a
// limited diff stays near its limit.
func TestLineDiffRenderAccountsForEveryChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := func() string {
		out := make([]string, rng.IntN(60))
		for i := range out {
			out[i] = strings.Repeat(string(rune('a'+rng.IntN(5))), 1+rng.IntN(200))
		}
		return strings.Join(out, "\n")
	}
	for n := range 300 {
		old, cur := text(), text()
		d, ok := newLineDiff(old, cur)
		if !ok {
			continue
		}
		limit := rng.IntN(3000)
		for _, short := range []bool{false, true} {
			got, _ := d.render(limit, diffStyles(short))
			shown := map[byte]int{}
			dropped := map[byte]int{}
			for l := range strings.Lines(got) {
				var n, rem, add int
				var what string
				switch {
				case !strings.HasPrefix(l, "…"):
					shown[l[0]]++
				case strings.Contains(l, "changed"):
					_, err := fmt.Sscanf(strings.Replace(l, "line ", "lines ", 1), "… %d more changed lines not shown (%d removed, %d added)", &n, &rem, &add)
					assert.NilError(t, err, "%q", l)
					assert.Equal(t, n, rem+add)
					dropped['-'] += rem
					dropped['+'] += add
				default:
					_, err := fmt.Sscanf(l, "… %d more %s", &n, &what)
					assert.NilError(t, err, "%q", l)
					if what == "removed" {
						dropped['-'] += n
					} else {
						dropped['+'] += n
					}
				}
			}
			assert.Equal(t, shown['-']+dropped['-'], d.removed, "case %d, limit %d", n, limit)
			assert.Equal(t, shown['+']+dropped['+'], d.added, "case %d, limit %d", n, limit)
			if limit > 0 {
				assert.Assert(t, utf8.RuneCountInString(got) <= max(limit, 80), "case %d: %d characters for a limit of %d", n, utf8.RuneCountInString(got), limit)
			}
		}
	}
}

// A JSON document held in a one-line string (a Step Functions definition)
// whose change lies past the 3,000-character cut is diffed as JSON, so the
// change shows in the comment.
func TestDiffMarkdownJSONInAString(t *testing.T) {
	states := func(last string) string {
		var b strings.Builder
		b.WriteString(`{"StartAt":"S0","States":{`)
		for i := 0; i < 80; i++ {
			fmt.Fprintf(&b, `"S%d":{"Type":"Task","Resource":"arn:aws:lambda:us-east-1:1:function:step-%d","Next":"S%d"},`, i, i, i+1)
		}
		fmt.Fprintf(&b, `"S80":{"Type":"Task","Resource":"%s","End":true}}}`, last)
		return b.String()
	}
	oldDef, newDef := states("arn:aws:lambda:us-east-1:1:function:final"), states("arn:aws:lambda:us-east-1:1:function:exfiltrate")
	assert.Assert(t, len(oldDef) > BlockMax)
	d := model.Diff{Stacks: []model.StackDiff{{Stack: "S", Region: "us-east-1", Changes: []model.ResourceChange{{
		LogicalID: "Machine", ChangeType: model.ChangeUpdate, ResourceType: "AWS::StepFunctions::StateMachine",
		PropertyChanges: []model.PropertyChange{{Path: "DefinitionString", Old: model.StringValue(oldDef), New: model.StringValue(newDef)}},
	}}}}}
	// The same documents with every brace written as a \u escape, as
	// another encoder may write them.
	escaped := func(def string) model.Value {
		return model.JSONValue(strings.ReplaceAll(string(model.StringValue(def).Raw), "{", `\u007b`))
	}
	e := model.Diff{Stacks: []model.StackDiff{{Stack: "S", Region: "us-east-1", Changes: []model.ResourceChange{{
		LogicalID: "Machine", ChangeType: model.ChangeUpdate, ResourceType: "AWS::StepFunctions::StateMachine",
		PropertyChanges: []model.PropertyChange{{Path: "DefinitionString", Old: escaped(oldDef), New: escaped(newDef)}},
	}}}}}
	for _, d := range []model.Diff{d, e} {
		for _, b := range []Budget{CommentBudget, CheckRunBudget} {
			md := DiffMarkdown(DiffReport{Diff: d}, b)
			assert.Assert(t, strings.Contains(md, "function:exfiltrate"), "%s hides the change", b.Channel)
			assert.Assert(t, strings.Contains(md, "```diff") || strings.Contains(md, "~~~diff"))
		}
	}
}
