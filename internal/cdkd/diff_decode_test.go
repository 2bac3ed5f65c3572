package cdkd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"gotest.tools/v3/assert"
)

// scanInputs are diffs the strict decoder must take, each as cdkd could
// print it, and what encoding/json must read the same.
var scanInputs = map[string]string{
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
	"missing stack": `[{"changes":[]}]`, // the conversion's error, not the reader's
	"null changes":  `[{"stack":"A","changes":null}]`,
	"null string":   `[{"stack":null,"changes":[]}]`,
	"escaped key":   `[{"st\u0061ck":"A","changes":[]}]`,
}

// scanDeclines are inputs the strict decoder leaves to encoding/json,
// which decodes or rejects them in its own words.
var scanDeclines = map[string]string{
	"empty":            ``,
	"null":             `null`,
	"object":           `{"stack":"A"}`,
	"key in caps":      `[{"Stack":"A","changes":[]}]`,
	"both spellings":   `[{"stack":"A","STACK":"B","changes":[]}]`,
	"repeated key":     `[{"stack":"A","stack":"B","changes":[]}]`,
	"unknown keys":     `[{"stack":"A","changes":[],"noEchoReaders":["R"],"stacks":1,"stack_":"x"}]`,
	"invalid utf-8":    "[{\"stack\":\"A\xff\",\"changes\":[]}]",
	"number as string": `[{"stack":1,"changes":[]}]`,
	"trailing comma":   `[{"stack":"A","changes":[],}]`,
	"trailing text":    `[{"stack":"A","changes":[]}] x`,
	"leading zero":     `[{"stack":"A","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"T","propertyChanges":[{"path":"P","newValue":01}]}]}]`,
	"bad escape":       `[{"stack":"A\q","changes":[]}]`,
	"control char":     "[{\"stack\":\"A\tB\",\"changes\":[]}]",
	"cut short":        `[{"stack":"A","changes":[`,
	"nul after":        "[]\x00",
}

// referenceNodes is what encoding/json reads.
func referenceNodes(b []byte) ([]diffNodeJSON, error) {
	return decodeList[diffNodeJSON](b, "cdkd diff JSON", "stacks")
}

func TestDecodeStrictReadsWhatEncodingJSONReads(t *testing.T) {
	for _, name := range []string{"16-diff-v2-json.stdout", "12-diff-v1-nochange-json.stdout"} {
		b, err := os.ReadFile(filepath.Join("testdata", "samples", name))
		assert.NilError(t, err)
		scanInputs[name] = string(b)
	}
	for name, in := range scanInputs {
		t.Run(name, func(t *testing.T) {
			want, err := referenceNodes([]byte(in))
			assert.NilError(t, err)
			got, ok := decodeStrict([]byte(in))
			assert.Assert(t, ok, "the strict decoder declined what cdkd prints")
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

func TestDecodeStrictLeavesTheRestToEncodingJSON(t *testing.T) {
	for name, in := range scanDeclines {
		t.Run(name, func(t *testing.T) {
			_, ok := decodeStrict([]byte(in))
			assert.Assert(t, !ok, "the strict decoder took input encoding/json reads its own way")
		})
	}
	// A declined input still decodes (or fails) exactly as before.
	d, err := DecodeDiff([]byte(`[{"Stack":"A","CHANGES":[]}]`))
	assert.NilError(t, err)
	assert.Equal(t, d.Stacks[0].Stack, "A")
	_, err = DecodeDiff([]byte(`[{"stack":"A","changes":null}]`))
	assert.Error(t, err, `decode cdkd diff JSON: stack "A": missing "changes"`)
}

// TestDecodeStrictValuesDoNotOverlap: an append to one value's bytes must
// not write into the next value.
func TestDecodeStrictValuesDoNotOverlap(t *testing.T) {
	nodes, ok := decodeStrict([]byte(`[{"stack":"A","changes":[{"logicalId":"R","changeType":"UPDATE","resourceType":"T",
		"propertyChanges":[{"path":"P","oldValue":"a","newValue":"b"}]}]}]`))
	assert.Assert(t, ok)
	p := (*nodes[0].Changes)[0].PropertyChanges[0]
	_ = append(p.Old.Raw, "XXXXXXXXXXXXXXXX"...)
	assert.Equal(t, string(p.New.Raw), `"b"`)
}

// TestDecodeDiffAllocations pins why the strict decoder is used: it
// allocates less than encoding/json for the same diff.
func TestDecodeDiffAllocations(t *testing.T) {
	in := []byte(cdkdtest.DiffJSON(5, 200))
	strict := testing.AllocsPerRun(3, func() {
		if _, ok := decodeStrict(in); !ok {
			t.Fatal("declined")
		}
	})
	reference := testing.AllocsPerRun(3, func() {
		if _, err := referenceNodes(in); err != nil {
			t.Fatal(err)
		}
	})
	assert.Assert(t, strict < reference, "%v allocations for 1,000 resources, encoding/json %v", strict, reference)
}

// BenchmarkDecodeDiff compares the two decoders on a 10,000-resource diff.
func BenchmarkDecodeDiff(b *testing.B) {
	in := []byte(cdkdtest.DiffJSON(50, 200))
	b.Run("go-json-experiment", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeStrict(in); !ok {
				b.Fatal("declined")
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

// FuzzDecodeStrict: whatever the strict decoder takes, encoding/json
// reads the same.
func FuzzDecodeStrict(f *testing.F) {
	for _, in := range scanInputs {
		f.Add([]byte(in))
	}
	for _, in := range scanDeclines {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := decodeStrict(b)
		if !ok {
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
