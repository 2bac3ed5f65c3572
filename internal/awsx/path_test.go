package awsx

import (
	"bytes"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
)

func decodeAny(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	assert.NilError(t, dec.Decode(&v))
	return v
}

func TestValueAt(t *testing.T) {
	doc := decodeAny(t, `{
		"Tags": [{"Key": "k0", "Value": "v0"}, {"Key": "k1", "Value": "v1"}],
		"Port": 5432,
		"a.b": {"c": "dotted"},
		"a": {"b": {"d": "nested"}},
		"Empty": null
	}`)
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{path: "Tags.0.Value", want: "v0", ok: true},
		{path: "Tags.1.Key", want: "k1", ok: true},
		{path: "Tags[1].Value", want: "v1", ok: true},
		{path: "Port", want: json.Number("5432"), ok: true},
		{path: "a.b.c", want: "dotted", ok: true},
		{path: "a.b.d", want: "nested", ok: true},
		{path: "Empty", want: nil, ok: true},
		{path: "Tags.2.Value"},
		{path: "Tags.-1.Value"},
		{path: "Tags.x"},
		{path: "Port.0"},
		{path: "Missing"},
		{path: "Tags.0.Value.More"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, ok := ValueAt(doc, tc.path)
			assert.Equal(t, ok, tc.ok)
			assert.DeepEqual(t, got, tc.want)
		})
	}

	got, ok := ValueAt(doc, "")
	assert.Assert(t, ok)
	assert.DeepEqual(t, got, doc)
}

func TestStrings(t *testing.T) {
	doc := decodeAny(t, `{"b": ["x", 1, true, {"z": "y"}], "a": "w", "c": null}`)
	assert.DeepEqual(t, Strings(doc), []string{"w", "x", "y"})
}

func sampleState(t *testing.T) *State {
	t.Helper()
	st, err := DecodeState(readTestdata(t, "state-stackA.json"))
	assert.NilError(t, err)
	return st
}

func TestStringsAt(t *testing.T) {
	st := sampleState(t)
	tests := []struct {
		name, logicalID, path string
		want                  []string
	}{
		{name: "NoEcho value in all three bags, once", logicalID: "NoEchoParam2FCCC8BD", path: "Value",
			want: []string{"hunter2-noecho-v1"}},
		{name: "object", logicalID: "Bucket83908E77", path: "VersioningConfiguration", want: []string{"Enabled"}},
		{name: "only in observed", logicalID: "Bucket83908E77", path: "BucketName", want: []string{"stacka-bucket83908e77"}},
		{name: "number is not a string", logicalID: "Queue4A7E3555", path: "VisibilityTimeout"},
		{name: "attribute", logicalID: "TopicBFC7AF6E", path: "TopicArn",
			want: []string{"arn:aws:sns:us-east-1:000000000000:StackA-TopicBFC7AF6E"}},
		{name: "unknown path", logicalID: "TopicBFC7AF6E", path: "Nope"},
		{name: "unknown resource", logicalID: "Nope", path: "Value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, st.StringsAt(tc.logicalID, tc.path), tc.want)
		})
	}

	var none *State
	assert.Assert(t, none.StringsAt("A", "B") == nil)
}

func TestContainsToken(t *testing.T) {
	st := sampleState(t)
	tests := []struct {
		logicalID, substr string
		want              bool
	}{
		{"SecretRefParam4A819521", "{{resolve:secretsmanager:", true},
		{"SecretNamedQueue", "{{resolve:secretsmanager:", true},
		{"SecretRefParam4A819521", "{{resolve:ssm-secure:", false},
		{"TopicBFC7AF6E", "{{resolve:", false},
		{"Queue4A7E3555", "localhost:4566", true},
		{"Nope", "{{resolve:", false},
	}
	for _, tc := range tests {
		t.Run(tc.logicalID+" "+tc.substr, func(t *testing.T) {
			assert.Equal(t, st.ContainsToken(tc.logicalID, tc.substr), tc.want)
		})
	}
}
