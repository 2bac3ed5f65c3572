package reporters

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

func TestCompactAndIndentMatchEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`, `[]`, `[ ]`, `{ "a" : [ 1, 2 , { } ], "b" : { "c" : null } }`,
		`{"s": "a \"quoted\" {brace} [bracket], colon: \\ and \u00e9 \n"}`,
		"[\n  {\n    \"k\": \"v w\"\n  },\n  true,\n  -1.5e3\n]",
		`{"nested":[[[]],[{}],{"x":[1,[2,[3]]]}]}`,
		`{"already":["compact",1]}`, `"a string"`, `{"a\\":"\\\"","b":"x\"y\\"}`,
	}
	for _, in := range inputs {
		assertCompactAndIndent(t, in)
	}
}

// FuzzCompactAndIndent: every valid JSON compacts and indents as
// encoding/json does.
func FuzzCompactAndIndent(f *testing.F) {
	for _, in := range []string{`{"a" : [1, "b\"c"]}`, `[ "\\", {"x":{}} ]`, `"s"`, `null`} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		assertCompactAndIndent(t, in)
	})
}

func assertCompactAndIndent(t *testing.T, in string) {
	t.Helper()
	var compact, indented bytes.Buffer
	assert.NilError(t, json.Compact(&compact, []byte(in)))
	assert.NilError(t, json.Indent(&indented, compact.Bytes(), "", "  "))
	assert.Equal(t, compactJSON([]byte(in)), compact.String(), "input %q", in)
	assert.Equal(t, indentJSON([]byte(in)), indented.String(), "input %q", in)
}

func TestShowValue(t *testing.T) {
	long := strings.Repeat("a", 100)
	tests := []struct {
		name  string
		v     model.Value
		short bool
		want  Shown
	}{
		{name: "string keeps quotes", v: model.StringValue("x"), want: Shown{Inline: "`\"x\"`"}},
		{name: "empty string", v: model.StringValue(""), want: Shown{Inline: "`\"\"`"}},
		{name: "number", v: model.JSONValue("5"), want: Shown{Inline: "`5`"}},
		{name: "null", v: model.JSONValue("null"), want: Shown{Inline: "`null`"}},
		{name: "small object compacted", v: model.JSONValue("{ \"Ref\" : \"X\" }"), want: Shown{Inline: "`{\"Ref\":\"X\"}`"}},
		{name: "html not escaped", v: model.StringValue("a<b>&c"), want: Shown{Inline: "`\"a<b>&c\"`"}},
		{name: "bidi made visible", v: model.JSONValue("\"a\u202eb\""), want: Shown{Inline: "`\"a\\u202eb\"`"}},
		{name: "multi-line string block", v: model.StringValue("a\nb"), want: Shown{Block: "a\nb"}},
		{name: "multi-line string short", v: model.StringValue("a\nb"), short: true, want: Shown{Inline: "`\"a\\nb\"`"}},
		{name: "escaped backslash is one line", v: model.JSONValue(`"a\\nb"`), want: Shown{Inline: "`\"a\\\\nb\"`"}},
		{name: "long string block", v: model.StringValue(long + "\nline2"), want: Shown{Block: long + "\nline2"}},
		{name: "long object block", v: model.JSONValue(`{"k":"` + long + `"}`), want: Shown{Block: "{\n  \"k\": \"" + long + "\"\n}", Lang: "json"}},
		{name: "short mode cuts", v: model.StringValue(long), short: true, want: Shown{Inline: "`\"" + strings.Repeat("a", 79) + "`… (22 more characters)"}},
		{name: "block cut", v: model.StringValue(strings.Repeat("é", BlockMax+5)), want: Shown{Block: strings.Repeat("é", BlockMax), More: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, ShowValue(tc.v, tc.short), tc.want)
		})
	}
}

// stringText reads a value's text without decoding it when it can, and
// always as encoding/json would.
func TestStringTextIsWhatEncodingJSONReads(t *testing.T) {
	for _, raw := range []string{`"plain"`, `""`, `"tab\there"`, `"quote \" in"`, `"é ü 😀"`, "\"bad \xff utf-8\"", "\"raw\ttab\"", `"\u003c"`, `"`, `"unclosed`, `123`} {
		got, ok := stringText([]byte(raw))
		var want string
		err := json.Unmarshal([]byte(raw), &want)
		if ok != (err == nil) || got != want {
			t.Errorf("stringText(%q) = %q, %v; encoding/json: %q, %v", raw, got, ok, want, err)
		}
	}
}
