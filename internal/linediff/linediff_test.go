package linediff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// lines splits "a b c" into lines, so that cases read on one line.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// script renders an edit script compactly: "=a -b +c".
func script(a, b []string, ops []Op) string {
	var parts []string
	for _, op := range ops {
		switch op.Kind {
		case ' ':
			parts = append(parts, "="+a[op.A])
		case '-':
			parts = append(parts, "-"+a[op.A])
		case '+':
			parts = append(parts, "+"+b[op.B])
		}
	}
	return strings.Join(parts, " ")
}

// assertScript checks that ops turns a into b, and numbers each line's
// position on both sides.
func assertScript(t *testing.T, a, b []string, ops []Op) {
	t.Helper()
	var gotA, gotB []string
	i, j := 0, 0
	for _, op := range ops {
		assert.Equal(t, op.A, i, "position in a of %+v", op)
		assert.Equal(t, op.B, j, "position in b of %+v", op)
		switch op.Kind {
		case ' ':
			assert.Equal(t, a[op.A], b[op.B])
			gotA, gotB = append(gotA, a[op.A]), append(gotB, b[op.B])
			i, j = i+1, j+1
		case '-':
			gotA = append(gotA, a[op.A])
			i++
		case '+':
			gotB = append(gotB, b[op.B])
			j++
		}
	}
	assert.Assert(t, slices.Equal(gotA, a), "kept and removed lines are not a: %q", gotA)
	assert.Assert(t, slices.Equal(gotB, b), "kept and added lines are not b: %q", gotB)
}

func TestLines(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{name: "equal", a: "x y", b: "x y", want: "=x =y"},
		{name: "both empty", a: "", b: "", want: ""},
		{name: "all added", a: "", b: "x y", want: "+x +y"},
		{name: "all removed", a: "x y", b: "", want: "-x -y"},
		{name: "one changed", a: "a b c", b: "a B c", want: "=a -b +B =c"},
		{name: "inserted in the middle", a: "a b c d", b: "a b X Y c d", want: "=a =b +X +Y =c =d"},
		{name: "removed at the end", a: "a b c", b: "a b", want: "=a =b -c"},
		{name: "removals before additions", a: "a x y b", b: "a p q b", want: "=a -x -y +p +q =b"},
		{name: "shortest script", a: "a b c a b b a", b: "c b a b a c", want: "-a -b =c +b =a =b -b =a +c"},
		{name: "repeated lines", a: "} } }", b: "} }", want: "=} =} -}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := lines(tc.a), lines(tc.b)
			ops := Lines(a, b)
			assertScript(t, a, b, ops)
			assert.Equal(t, script(a, b, ops), tc.want)
		})
	}
}

// An added or removed run that could sit in several places sits where its
// ends are least indented.
func TestLinesSlidesToTheLeastIndentedPlace(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{
			name: "added object",
			a:    "[|__{|____a|__},|__{|____b|__}|]",
			b:    "[|__{|____a|__},|__{|____new|__},|__{|____b|__}|]",
			want: "=[ =__{ =____a =__}, +__{ +____new +__}, =__{ =____b =__} =]",
		},
		{
			name: "removed object",
			a:    "[|__{|____x|__},|__{|____b|__}|]",
			b:    "[|__{|____b|__}|]",
			want: "=[ -__{ -____x -__}, =__{ =____b =__} =]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			split := func(s string) []string { return strings.Split(s, "|") }
			a, b := split(strings.ReplaceAll(tc.a, "_", " ")), split(strings.ReplaceAll(tc.b, "_", " "))
			ops := Lines(a, b)
			assertScript(t, a, b, ops)
			// Blanks in lines show as "_", as in the cases.
			assert.Equal(t, script(split(strings.ReplaceAll(tc.a, " ", "_")), split(strings.ReplaceAll(tc.b, " ", "_")), ops), tc.want)
		})
	}
}

func TestSlideKeepsRunsApart(t *testing.T) {
	a, b := []string{"p", "x", "x", "y"}, []string{"P", "x", "y"}
	kinds := []byte("-+ - ")
	slide(kinds, a, b)
	assert.Equal(t, string(kinds), "-+ - ", "sliding up would join the change before")

	a, b = []string{"  y", "x", "    z", "  y"}, []string{"  y"}
	kinds = []byte("--- ")
	slide(kinds, a, b)
	assert.Equal(t, string(kinds), " ---", "slid down to the least indented ends")
}

// lcs is the length of a longest common subsequence, by the textbook table.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// TestLinesIsShortest compares with the longest common subsequence, on
// short inputs and long ones.
func TestLinesIsShortest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := func(lo, hi int) []string {
		out := make([]string, lo+rng.IntN(hi-lo))
		for i := range out {
			out[i] = string(rune('a' + rng.IntN(4)))
		}
		return out
	}
	for n := range 700 {
		a, b := words(0, 12), words(0, 12)
		if n >= 500 {
			a, b = words(32, 128), words(32, 128)
		}
		ops := Lines(a, b)
		assertScript(t, a, b, ops)
		kept := 0
		for _, op := range ops {
			if op.Kind == ' ' {
				kept++
			}
		}
		assert.Equal(t, kept, lcs(a, b), "case %d: %q → %q: %s", n, a, b, script(a, b, ops))
	}
}

func TestLinesGivesUpOnHugeInputs(t *testing.T) {
	many := func(n int, prefix string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return out
	}
	t.Run("too many lines: prefix and suffix kept, the middle replaced", func(t *testing.T) {
		a := append(append([]string{"head"}, many(MaxLines+1, "a")...), "tail")
		b := append(append([]string{"head"}, many(10, "b")...), "tail")
		ops := Lines(a, b)
		assertScript(t, a, b, ops)
		assert.Equal(t, ops[0].Kind, byte(' '))
		assert.Equal(t, ops[len(ops)-1].Kind, byte(' '))
		assert.Equal(t, len(ops), 2+len(a)-2+len(b)-2, "the middle is removed and added whole")
	})
	t.Run("too many edits", func(t *testing.T) {
		a, b := many(MaxEdits, "a"), many(MaxEdits, "b")
		a[MaxEdits/2] = "same"
		b[MaxEdits/2] = "same"
		ops := Lines(a, b)
		assertScript(t, a, b, ops)
		assert.Equal(t, len(ops), 2*MaxEdits)
	})
	t.Run("within the limits", func(t *testing.T) {
		a := many(MaxLines, "x")
		b := append(append(append([]string(nil), a[:100]...), "new"), a[101:]...)
		ops := Lines(a, b)
		assertScript(t, a, b, ops)
		assert.Equal(t, len(ops), MaxLines+1)
	})
}

// l30 is a line of 30 characters.
func BenchmarkDiffLines(b *testing.B) {
	var old []string
	for i := range 4000 {
		old = append(old, fmt.Sprintf(`      "Resource": "arn:aws:s3:::bucket-%d/*"`, i))
	}
	cur := append([]string(nil), old...)
	for i := 0; i < len(cur); i += 50 {
		cur[i] += ","
	}
	b.ReportAllocs()
	for b.Loop() {
		Lines(old, cur)
	}
}

// BenchmarkDiffLinesPolicy diffs a statement's action growing into a
// list: the few lines a report diffs thousands of times.
func BenchmarkDiffLinesPolicy(b *testing.B) {
	old := strings.Split("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\n      \"Effect\": \"Allow\",\n      \"Action\": \"s3:GetObject\",\n      \"Resource\": \"arn:aws:s3:::bucket-2/*\"\n    }\n  ]\n}", "\n")
	cur := strings.Split("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\n      \"Effect\": \"Allow\",\n      \"Action\": [\n        \"s3:GetObject\",\n        \"s3:PutObject\"\n      ],\n      \"Resource\": \"arn:aws:s3:::bucket-2/*\"\n    }\n  ]\n}", "\n")
	b.ReportAllocs()
	for b.Loop() {
		Lines(old, cur)
	}
}
