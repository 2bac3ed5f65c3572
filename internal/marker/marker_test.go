package marker

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestHeaderString(t *testing.T) {
	h := Header{V: 1, Kind: "diff", Label: "prod", SHA: "0123abc", Digest: "v1:deadbeef", Cdkd: "0.284.40"}
	assert.Equal(t, h.String(),
		`<!-- cdkd-action:{"v":1,"kind":"diff","label":"prod","sha":"0123abc","digest":"v1:deadbeef","cdkd":"0.284.40"} -->`)

	// The version defaults to the current one; empty optional fields vanish;
	// extra keys are sorted.
	h = Header{Kind: "deploy", Label: "", Extra: map[string]string{"z": "1", "a": "2"}}
	assert.Equal(t, h.String(), `<!-- cdkd-action:{"v":1,"kind":"deploy","label":"","extra":{"a":"2","z":"1"}} -->`)
}

func TestHeaderRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		h    Header
	}{
		{"plain", Header{V: 1, Kind: "diff", Label: "prod", SHA: "abc", Digest: "v1:00", Cdkd: "0.284.40"}},
		{"comment closer in label", Header{V: 1, Kind: "diff", Label: `x --> y`}},
		{"HTML5 closer --!>", Header{V: 1, Kind: "diff", Label: `x --!> y`}},
		{"quotes and backslashes", Header{V: 1, Kind: "diff", Label: `"prod" \ 'eu'`}},
		{"comment opener and newlines", Header{V: 1, Kind: "diff", Label: "<!-- a\nb\r\n\u2028c"}},
		{"extra", Header{V: 1, Kind: "drift", Label: "all", Extra: map[string]string{"run": "12", "k": "-->"}}},
		{"empty label", Header{V: 1, Kind: "diff"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := tc.h.String()
			assert.Check(t, !strings.ContainsAny(line, "\n\r\u2028\u2029"), line)
			inner := strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->")
			assert.Check(t, !strings.Contains(inner, ">"), "only the closer may contain '>': %s", line)
			assert.Check(t, !strings.Contains(inner, "<"), "no nested comment opener: %s", line)

			got, ok := Parse(line + "\n\n## cdkd diff\nbody --> with <!-- markup -->\n")
			assert.Assert(t, ok)
			assert.DeepEqual(t, got, tc.h)
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Header
		ok   bool
	}{
		{"header only", `<!-- cdkd-action:{"v":1,"kind":"diff","label":"prod"} -->`, Header{V: 1, Kind: "diff", Label: "prod"}, true},
		{"CRLF", "<!-- cdkd-action:{\"v\":1,\"kind\":\"diff\",\"label\":\"p\"} -->\r\nbody", Header{V: 1, Kind: "diff", Label: "p"}, true},
		{"byte order mark and spaces", "\ufeff  <!-- cdkd-action:{\"v\":1,\"kind\":\"diff\",\"label\":\"p\"}-->  \nx", Header{V: 1, Kind: "diff", Label: "p"}, true},
		{"unknown fields ignored", `<!-- cdkd-action:{"v":1,"kind":"diff","label":"p","future":{"x":[1]}} -->`, Header{V: 1, Kind: "diff", Label: "p"}, true},
		{"newer version", `<!-- cdkd-action:{"v":2,"kind":"diff","label":"p"} -->`, Header{}, false},
		{"no version", `<!-- cdkd-action:{"kind":"diff","label":"p"} -->`, Header{}, false},
		{"no kind", `<!-- cdkd-action:{"v":1,"label":"p"} -->`, Header{}, false},
		{"not on the first line", "hello\n" + `<!-- cdkd-action:{"v":1,"kind":"diff","label":"p"} -->`, Header{}, false},
		{"other tool's marker", `<!-- tfcmt:{"v":1,"kind":"diff","label":"p"} -->`, Header{}, false},
		{"unterminated", `<!-- cdkd-action:{"v":1,"kind":"diff","label":"p"}`, Header{}, false},
		{"trailing text", `<!-- cdkd-action:{"v":1,"kind":"diff","label":"p"} --> hi`, Header{}, false},
		{"bad JSON", `<!-- cdkd-action:{"v":1,"kind":"diff", -->`, Header{}, false},
		{"wrong types", `<!-- cdkd-action:{"v":"1","kind":"diff","label":"p"} -->`, Header{}, false},
		{"empty", "", Header{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Parse(tc.body)
			assert.Equal(t, ok, tc.ok)
			assert.DeepEqual(t, got, tc.want)
		})
	}
}

// The report's layout travels in the header, and a header written before
// it was recorded reads as 0 (layout 1 to the renderers).
func TestHeaderRender(t *testing.T) {
	h := Header{V: 1, Kind: "diff", Digest: "v3:abc", Render: 2}
	got, ok := Parse(h.String())
	assert.Assert(t, ok)
	assert.Equal(t, got.Render, 2)
	old, ok := Parse(`<!-- cdkd-action:{"v":1,"kind":"diff","digest":"v3:abc"} -->`)
	assert.Assert(t, ok)
	assert.Equal(t, old.Render, 0)
	assert.Assert(t, !strings.Contains(Header{V: 1, Kind: "diff"}.String(), "render"), "written only when set")
}
