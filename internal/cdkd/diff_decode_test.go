package cdkd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// readInputs are diffs as cdkd could print them: the one reader reads each
// as encoding/json did.
var readInputs = map[string]string{
	"generated": cdkdtest.DiffJSON(3, 8),
	"every field": `[{"stack":"A","region":"eu-west-1","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"AWS::S3::Bucket",
		"propertyChanges":[{"path":"Tags","oldValue":null,"newValue":[1,-2.5e+3,true,false,null,{"k":"v"}],"requiresReplacement":true,"replacementPropagated":false}],
		"attributeChanges":[{"attribute":"DeletionPolicy","oldValue":"Delete","newValue":"Retain"}],"ccApi":["a","b"]}],
		"outputChanges":[{"name":"O","changeType":"ADD","newValue":"x","oldValueRedacted":true,"export":true}],
		"children":[{"stack":"Nested","changes":[],"children":[]}],"noEchoReaders":["R"]}]`,
	"escapes and unicode": `[{"stack":"Stäck \"q\" \u00e9 \ud83d\ude00","changes":[{"logicalId":"R\\1","changeType":"CREATE","resourceType":"AWS::X::Y",
		"propertyChanges":[{"path":"P/ü","newValue":"line\nbreak \u0000 é"}]}]}]`,
	"white space":   " \n[ { \"stack\" : \"A\" ,\t\"changes\" : [ ] } ]\r\n",
	"empty list":    `[]`,
	"unknown keys":  `[{"stack":"A","changes":[],"noEchoReaders":["R"],"stacks":1,"stack_":"x","future":{"a":[1]}}]`,
	"missing stack": `[{"changes":[]}]`, // the conversion's error, not the reader's
	"null changes":  `[{"stack":"A","changes":null}]`,
	"null string":   `[{"stack":null,"changes":[]}]`,
	"escaped key":   `[{"st\u0061ck":"A","changes":[]}]`,
}

// readChoices are the inputs the one reader reads differently from
// encoding/json, by choice (readOptions), and what it says. An empty err
// means it reads the input, as stack.
var readChoices = []struct {
	name, in, err, stack string
}{
	{name: "empty", in: ``, err: "cdkd printed no JSON"},
	{name: "null", in: `null`, err: "decode cdkd diff JSON: expected a list of stacks, got null"},
	{name: "object", in: `{"stack":"A"}`, err: "decode cdkd diff JSON: expected a list of stacks, got a JSON object"},
	// Names match as cdkd spells them: encoding/json read "Stack" as "stack".
	{name: "key in caps", in: `[{"Stack":"A","changes":[]}]`, err: `decode cdkd diff JSON: stack #1: missing "stack"`},
	{name: "other spelling too", in: `[{"stack":"A","STACK":"B","changes":[]}]`, stack: "A"},
	// encoding/json took the last of a repeated name.
	{name: "repeated key", in: `[{"stack":"A","stack":"B","changes":[]}]`,
		err: `decode cdkd diff JSON: the name "stack" appears twice in one object (at byte 14, in /0/stack); cdkd prints each name once, and which value counts would be ambiguous`},
	{name: "repeated key inside a value", in: `[{"stack":"A","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"T","propertyChanges":[{"path":"P","newValue":{"k":1,"k":2}}]}]}]`,
		err: `the name "k" appears twice in one object (at byte 132, in /0/changes/0/propertyChanges/0/newValue/k)`},
	// encoding/json replaced these with U+FFFD.
	{name: "invalid utf-8", in: "[{\"stack\":\"A\xff\",\"changes\":[]}]", err: "decode cdkd diff JSON: a string is not valid UTF-8 (at byte 12, in /0/stack)"},
	{name: "lone surrogate", in: `[{"stack":"\ud800","changes":[]}]`, err: "decode cdkd diff JSON: a string is not valid UTF-8 (at byte 11, in /0/stack)"},
	{name: "number as string", in: `[{"stack":1,"changes":[]}]`,
		err: `decode cdkd diff JSON: field "stack" holds a JSON number, which is not what cdkd prints there (at /0/stack)`},
	{name: "trailing comma", in: `[{"stack":"A","changes":[],}]`, err: "decode cdkd diff JSON: not valid JSON (at byte 26, in /0: invalid character ',' at start of value); stdout starts with"},
	{name: "trailing text", in: `[{"stack":"A","changes":[]}] x`, err: "not valid JSON (at byte 29: invalid character 'x' after top-level value)"},
	{name: "leading zero", in: `[{"stack":"A","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"T","propertyChanges":[{"path":"P","newValue":01}]}]}]`, err: "not valid JSON"},
	{name: "bad escape", in: `[{"stack":"A\q","changes":[]}]`, err: "not valid JSON"},
	{name: "control char", in: "[{\"stack\":\"A\tB\",\"changes\":[]}]", err: "not valid JSON"},
	{name: "cut short", in: `[{"stack":"A","changes":[`, err: "not valid JSON (at byte 25, in /0/changes: unexpected EOF)"},
	{name: "nul after", in: "[]\x00", err: "not valid JSON"},
	{name: "a value is never quoted", in: `[{"stack":"S","region":{"secret":"hunter2"},"changes":[]}]`,
		err: `field "region" holds a JSON object, which is not what cdkd prints there (at /0/region)`},
}

// referenceNodes is what encoding/json reads.
func referenceNodes(b []byte) ([]diffNodeJSON, error) {
	var nodes []diffNodeJSON
	err := json.Unmarshal(b, &nodes)
	return nodes, err
}

func TestDecodeDiffReadsWhatEncodingJSONReads(t *testing.T) {
	inputs := map[string]string{}
	for k, v := range readInputs {
		inputs[k] = v
	}
	for _, name := range []string{"16-diff-v2-json.stdout", "12-diff-v1-nochange-json.stdout"} {
		b, err := os.ReadFile(filepath.Join("testdata", "samples", name))
		assert.NilError(t, err)
		inputs[name] = string(b)
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want, err := referenceNodes([]byte(in))
			assert.NilError(t, err)
			got, err := decodeList[diffNodeJSON]([]byte(in), "cdkd diff JSON", "stacks")
			assert.NilError(t, err, "the reader declined what cdkd prints")
			assert.DeepEqual(t, got, want)
			// And the whole decode, conversion errors included, is the same.
			gotDiff, gotErr := DecodeDiff([]byte(in))
			wantStacks, wantErr := convertDiffNodes(want, "")
			if wantErr != nil {
				assert.Error(t, gotErr, "decode cdkd diff JSON: "+wantErr.Error())
				return
			}
			assert.NilError(t, gotErr)
			wantDiff := model.Diff{Stacks: wantStacks}
			wantDiff.Sort()
			assert.DeepEqual(t, gotDiff, wantDiff)
		})
	}
}

func TestDecodeDiffReadChoices(t *testing.T) {
	for _, tc := range readChoices {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DecodeDiff([]byte(tc.in))
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				assert.Assert(t, !strings.Contains(err.Error(), "hunter2"), "a value is never quoted: %v", err)
				if !strings.Contains(tc.err, "not valid JSON") {
					assert.Assert(t, !strings.Contains(err.Error(), "stdout starts with"), "valid JSON declined by choice is not quoted: %v", err)
				}
				return
			}
			assert.NilError(t, err)
			assert.Equal(t, d.Stacks[0].Stack, tc.stack)
		})
	}
}

// The other readers of cdkd's JSON make the same choices.
func TestEveryReaderMakesTheSameChoices(t *testing.T) {
	for name, decode := range map[string]func([]byte) error{
		"drift":      func(b []byte) error { _, err := DecodeDrift(b); return err },
		"state show": func(b []byte) error { _, err := DecodeStateShow(b); return err },
		"state list": func(b []byte) error { _, err := DecodeStateList(b); return err },
		"runs":       func(b []byte) error { _, err := DecodeRuns(b); return err },
		"events":     func(b []byte) error { _, err := DecodeEvents(b); return err },
	} {
		t.Run(name, func(t *testing.T) {
			for in, want := range map[string]string{
				`[{"a":1,"a":2}]`:                         `the name "a" appears twice in one object`,
				`{"a":1,"a":2}`:                           `the name "a" appears twice in one object`,
				"[{\"stackName\":\"A\xff\"}]":             "a string is not valid UTF-8",
				"{\"state\":{\"stackName\":\"\\ud800\"}}": "a string is not valid UTF-8",
			} {
				err := decode([]byte(in))
				assert.Assert(t, err != nil, "%s read %q", name, in)
				if strings.HasPrefix(in, "[") == (name == "drift" || name == "state list" || name == "events") {
					assert.Check(t, is.Contains(err.Error(), want), "%s on %q", name, in)
				}
			}
		})
	}
}

// An unknown member of a drift report is still kept as a group: the
// reader's embedded fallback holds it.
func TestDecodeDriftUnknownGroupStillKept(t *testing.T) {
	d, err := DecodeDrift([]byte(`[{"stack":"S","drifted":[],"clean":[],"notSupported":[],"notCompared":[],
		"masked":[{"logicalId":"P","type":"AWS::SSM::Parameter","path":"Value"}],"note":"x"}]`))
	assert.NilError(t, err)
	assert.DeepEqual(t, d.Stacks[0].Groups, []model.DriftGroup{{Name: "masked", Entries: []model.GroupEntry{
		{Resource: model.Resource{LogicalID: "P", Type: "AWS::SSM::Parameter"}, Paths: []string{"Value"}},
	}}})
}

// TestDecodeDiffValuesDoNotOverlap: an append to one value's bytes must
// not write into the next value.
func TestDecodeDiffValuesDoNotOverlap(t *testing.T) {
	d, err := DecodeDiff([]byte(`[{"stack":"A","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"T",
		"propertyChanges":[{"path":"P","oldValue":"a","newValue":"b"}]}]}]`))
	assert.NilError(t, err)
	p := d.Stacks[0].Changes[0].PropertyChanges[0]
	_ = append(p.Old.Raw, "XXXXXXXXXXXXXXXX"...)
	assert.Equal(t, string(p.New.Raw), `"b"`)
}

// TestDecodeDiffAllocations pins why this reader is the one: it allocates
// less than encoding/json for the same diff.
func TestDecodeDiffAllocations(t *testing.T) {
	in := []byte(cdkdtest.DiffJSON(5, 200))
	one := testing.AllocsPerRun(3, func() {
		if _, err := decodeList[diffNodeJSON](in, "cdkd diff JSON", "stacks"); err != nil {
			t.Fatal(err)
		}
	})
	reference := testing.AllocsPerRun(3, func() {
		if _, err := referenceNodes(in); err != nil {
			t.Fatal(err)
		}
	})
	assert.Assert(t, one < reference, "%v allocations for 1,000 resources, encoding/json %v", one, reference)
}

// BenchmarkDecodeDiff measures the reader on a 10,000-resource diff: the
// JSON alone, the whole DecodeDiff (conversion and sort), and encoding/json
// reading the same JSON, for reference.
func BenchmarkDecodeDiff(b *testing.B) {
	in := []byte(cdkdtest.DiffJSON(50, 200))
	b.Run("go-json-experiment", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeList[diffNodeJSON](in, "cdkd diff JSON", "stacks"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeDiff(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := referenceNodes(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzDecodeDiff: whatever the reader accepts, encoding/json accepts and
// reads the same, but for the one difference readOptions chooses among
// accepted inputs: a name that matches a field only case-insensitively,
// which encoding/json read into the field (or rejected for its type) and
// this reader leaves unknown.
func FuzzDecodeDiff(f *testing.F) {
	for _, in := range readInputs {
		f.Add([]byte(in))
	}
	for _, tc := range readChoices {
		f.Add([]byte(tc.in))
	}
	names := fieldNames(reflect.TypeFor[diffNodeJSON](), map[string]bool{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeList[diffNodeJSON](b, "cdkd diff JSON", "stacks")
		if err != nil || otherSpelling(t, b, names) {
			return
		}
		want, err := referenceNodes(b)
		if err != nil {
			t.Fatalf("taken by the reader, rejected by encoding/json: %v", err)
		}
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		assert.Equal(t, string(gotJSON), string(wantJSON))
	})
}

// fieldNames collects the JSON names of t's fields, nested types included.
func fieldNames(t reflect.Type, seen map[string]bool) map[string]bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen["\x00"+t.String()] {
		return seen
	}
	seen["\x00"+t.String()] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			seen[name] = true
		}
		fieldNames(f.Type, seen)
	}
	return seen
}

// otherSpelling reports an object name in b that matches a field name
// only case-insensitively.
func otherSpelling(t *testing.T, b []byte, names map[string]bool) bool {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.Kind() != '"' || !objectName(dec) {
			continue
		}
		n := tok.String()
		for f := range names {
			if n != f && strings.EqualFold(n, f) {
				return true
			}
		}
	}
}

// objectName reports whether the string token just read is an object's
// member name: inside an object, names and values alternate.
func objectName(dec *jsontext.Decoder) bool {
	kind, length := dec.StackIndex(dec.StackDepth())
	return kind == '{' && length%2 == 1
}
