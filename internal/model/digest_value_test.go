package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"testing"

	"gotest.tools/v3/assert"
)

// decodedDigestForm is how the digest wrote a value before canonicalJSON:
// decoded (DecodeJSON), then walked. canonicalJSON must write the same.
func decodedDigestForm(raw []byte) ([]byte, bool) {
	x, err := DecodeJSON(raw)
	if err != nil {
		return nil, false
	}
	var b bytes.Buffer
	w := &digestWriter{w: bufio.NewWriter(&b)}
	w.any(x)
	_ = w.w.Flush()
	return b.Bytes(), true
}

func (w *digestWriter) any(x any) {
	switch t := x.(type) {
	case nil:
		w.tag('n')
	case bool:
		w.bool(t)
	case json.Number:
		w.tag('d')
		w.str(t.String())
	case string:
		w.tag('s')
		w.str(t)
	case []any:
		w.tag('[')
		w.count(len(t))
		for _, e := range t {
			w.any(e)
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.tag('{')
		w.count(len(keys))
		for _, k := range keys {
			w.str(k)
			w.any(t[k])
		}
	}
}

var digestFormSeeds = []string{
	`{"b":[1,1.0,-0,1e3,1E+3,12345678901234567890123],"a":{"z":null,"y":true,"x":false},"c":{},"d":[]}`,
	` { "k" : "v\u00e9\"\\\/\n\t" , "k" : "last wins", "\u0061":"escaped name", "a":"dup of escaped" } `,
	`{"x":{"k":1,"k":{"k":2,"j":[{"b":1,"a":2,"b":3}]}},"w":[[],[[]],{}]}`,
	`"plain"`, `"esc\u0041ped"`, `"\ud83d\ude00 and a lone \ud800"`, "\"bad utf-8 \xff\"", "{\"\xff\":\"\xfe\"}",
	`null`, `true`, `false`, `0.5`, `-1e-7`, `[[[]],{"":""}]`, `{"a":1} trailing`, `{"a":`, `not json`, `[1,]`,
	`"\q"`, `[1 2]`, `{"a" 1}`, `{1:2}`, `}`, ``, ` `, `[`, `{"a":1,}`, `"unterminated`, "\"ctl\x01\"",
	`{"Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"}]]}}]}`,
}

func TestDigestFormAgreesWithDecoding(t *testing.T) {
	for _, raw := range digestFormSeeds {
		checkDigestForm(t, []byte(raw))
	}
}

func FuzzDigestFormAgreesWithDecoding(f *testing.F) {
	for _, raw := range digestFormSeeds {
		f.Add([]byte(raw))
	}
	f.Fuzz(checkDigestForm)
}

func checkDigestForm(t *testing.T, raw []byte) {
	t.Helper()
	want, ok := decodedDigestForm(raw)
	var c canonicalJSON
	got, err := c.digestForm(raw)
	assert.Equal(t, err == nil, ok, "%q: %v", raw, err)
	if ok {
		assert.Equal(t, string(got), string(want), "%q", raw)
	}
}
