package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func decodeV1(t testing.TB, b []byte) (any, error) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	err := dec.Decode(&x)
	return x, err
}

// DecodeJSON gives what encoding/json gives, wherever both accept the input.
func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`null`, `true`, `false`, `0`, `-1.50e+10`, `12345678901234567890123`, `"a\u00e9\n\"b"`, `"\ud83d\ude00"`,
		`[]`, `{}`, `[1,"a",null,[{}]]`, `{"b":1,"a":{"c":[true,false]},"a2":"x"}`,
		`{"a":1,"a":2}`, "\"bad \xff utf8\"", ` {"x" : [ 1 , 2 ] } `,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":"arn:aws:s3:::b/*"}]}`,
	} {
		want, werr := decodeV1(t, []byte(in))
		got, gerr := DecodeJSON([]byte(in))
		assert.Equal(t, gerr == nil, werr == nil, "%s: %v / %v", in, gerr, werr)
		if werr == nil {
			assert.DeepEqual(t, got, want)
		}
	}
}

// DecodeJSON shares the short strings it decodes from value to value:
// each value must still get its own, through escapes and past the bound.
func TestDecodeJSONSharesStringsRightly(t *testing.T) {
	var many strings.Builder
	many.WriteString("[")
	for i := range internedMost*2 + 10 {
		fmt.Fprintf(&many, `"s%d",{"k%d":%d},`, i%(internedMost+7), i, i)
	}
	many.WriteString(`"` + strings.Repeat("long", internedLen) + `"]`)
	ins := []string{
		`{"A":"A","a":"\u0041","\u0041b":"Ab"}`, `["A","\u0041","\u00e9","é","e\u0301"]`,
		many.String(), many.String(), `["s1","s1 ","k1",1,1.0,"1"]`, "[\"\xff\",\"\xfe\",\"\ufffd\"]",
	}
	for _, in := range ins {
		want, werr := decodeV1(t, []byte(in))
		assert.NilError(t, werr)
		got, err := DecodeJSON([]byte(in))
		assert.NilError(t, err)
		assert.DeepEqual(t, got, want)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"x"`, `1e5`, `{"a":1,"a":"2"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gerr := DecodeJSON(b)
		want, werr := decodeV1(t, b)
		if gerr == nil && werr == nil {
			assert.DeepEqual(t, got, want)
		}
	})
}

func BenchmarkDecodeJSON(b *testing.B) {
	in := []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::bucket-12/*"}]}`)
	b.Run("jsontext", func(b *testing.B) {
		for b.Loop() {
			_, _ = DecodeJSON(in)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			_, _ = decodeV1(b, in)
		}
	})
}

// checkSpans holds DecodeJSONSpans to DecodeJSON: the same value, and for
// each member of the section a span whose bytes decode to that member's
// value, one span per member.
func checkSpans(t *testing.T, b []byte) {
	t.Helper()
	whole, werr := DecodeJSON(b)
	got, spans, err := DecodeJSONSpans(b, "Resources")
	assert.Equal(t, err == nil, werr == nil, "%q: %v / %v", b, err, werr)
	if err != nil {
		return
	}
	assert.DeepEqual(t, got, whole)
	top, _ := whole.(map[string]any)
	sec, isObject := top["Resources"].(map[string]any)
	if !isObject {
		assert.Assert(t, spans == nil, "%q: spans of no section", b)
		return
	}
	assert.Equal(t, len(spans), len(sec), "%q", b)
	for name, v := range sec {
		span, ok := spans[name]
		assert.Assert(t, ok, "%q: no span for %q", b, name)
		again, err := DecodeJSON(b[span[0]:span[1]])
		assert.NilError(t, err, "%q: %q spans %q", b, name, b[span[0]:span[1]])
		assert.DeepEqual(t, again, v)
	}
}

// A template's resources can be decoded again from their spans: through
// spacing, repeated names and sections, and values of every kind.
func TestDecodeJSONSpans(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `"x"`, `{"Resources":{}}`, `{"Resources":[1]}`,
		"{ \"Resources\" :\n\t{ \"A\" : {\"Type\":\"T\",\"Properties\":{\"x\":[1,{\"y\":null}]}} ,\r\n \"B\":\"s\", \"C\":-1.5e3,\"D\":true,\"E\":null,\"F\":[] } }",
		`{"Resources":{"A":1,"A":{"Type":"second"}}}`, `{"Resources":{"A":1},"Resources":{"B":2}}`,
		`{"Resources":{"A":1},"Resources":null}`, `{"Resources":1,"Resources":{"A":1}}`,
		`{"Resources":{"\u00e9":"escaped","B":"\ud83d\ude00"}}`, `{"Other":{"Resources":{"A":1}},"Resources":{"B":{}}}`,
		`{"Resources":{"A":`, `{"Resources":{"A":1}`,
	} {
		checkSpans(t, []byte(in))
	}
}

func FuzzDecodeJSONSpans(f *testing.F) {
	for _, s := range []string{`{"Resources":{"A":1,"C":[2]}}`, `{"Resources":{"A":1},"Resources":{"B":[]}}`, ` { "Resources" : { "A" : { } } } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSpans(t, b) })
}
