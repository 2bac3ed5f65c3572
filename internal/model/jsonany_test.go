package model

import (
	"bytes"
	"encoding/json"
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
