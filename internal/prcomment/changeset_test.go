package prcomment

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/cdkd-action/cdkd-action/internal/marker"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// sampleDiff is cdkd's diff of the sample app v2, as the diff command holds
// it after redaction: the NoEcho position hidden.
func sampleDiff(t *testing.T) model.Diff {
	t.Helper()
	b, err := os.ReadFile("testdata/diff-v2.json")
	assert.NilError(t, err)
	var d model.Diff
	assert.NilError(t, json.Unmarshal(b, &d.Stacks))
	for i := range d.Stacks[0].Changes {
		ch := &d.Stacks[0].Changes[i]
		if ch.LogicalID == "NoEchoParam2FCCC8BD" {
			ch.PropertyChanges[0].Secret = model.SecretNoEcho
			ch.PropertyChanges[0].Old, ch.PropertyChanges[0].New = model.HiddenValue(), model.HiddenValue()
		}
	}
	propagated := true
	d.Stacks[0].Changes[1].PropertyChanges[0].ReplacementPropagated = &propagated
	d.Stacks[1].Changes[0].PropertyChanges = append(d.Stacks[1].Changes[0].PropertyChanges,
		model.PropertyChange{Path: "Tier", Old: model.JSONValue("null")})
	d.Stacks[0].NoEchoReaders = []string{"Other"}
	d.Sort()
	return d
}

func comment(digest, line string) string {
	h := marker.Header{V: 1, Kind: "diff", SHA: "1111111111111111111111111111111111111111", Digest: digest}
	if line != "" {
		line += "\n"
	}
	return h.String() + "\n" + line + "### cdkd diff\n\nbody\n"
}

func TestChangeSetRoundTrip(t *testing.T) {
	for _, d := range []model.Diff{sampleDiff(t), {}, {Stacks: []model.StackDiff{{Stack: "Quiet", Region: "us-east-1"}}}} {
		line := EncodeChangeSet(d, 20000, nil)
		assert.Assert(t, strings.HasPrefix(line, "<!-- cdkd-action-changeset:v1 "), line)
		assert.Assert(t, !strings.Contains(line, "\n"))
		cs, err := DecodeChangeSet(comment(d.Digest(), line), d.Digest())
		assert.NilError(t, err)
		assert.Assert(t, cs.Diff != nil, "stored whole")
		assert.Equal(t, cs.Diff.Digest(), d.Digest())
		assert.Assert(t, Compare(*cs.Diff, d).Empty())
	}
}

// Compare is model.Compare; a shorthand for the tests.
func Compare(a, b model.Diff) model.Comparison { return model.Compare(a, b) }

// Too big for the whole form: fingerprints; too big for those: nothing.
func TestChangeSetFallbacks(t *testing.T) {
	d := hugeDiff(300)
	whole := EncodeChangeSet(d, 1<<30, nil)
	prints := EncodeChangeSet(d, len(whole)-1, nil)
	assert.Assert(t, prints != "" && len(prints) < len(whole))
	cs, err := DecodeChangeSet(comment(d.Digest(), prints), d.Digest())
	assert.NilError(t, err)
	assert.Assert(t, cs.Diff == nil)
	assert.Equal(t, len(cs.Fingerprints), 300)
	assert.Assert(t, model.CompareFingerprints(cs.Fingerprints, d).Empty())
	assert.Equal(t, EncodeChangeSet(d, len(prints)-1, nil), "")

	// A line the redactor would alter is not written; the next form is.
	calls := 0
	rejectFirst := func(string) bool { calls++; return calls == 1 }
	assert.Equal(t, EncodeChangeSet(d, 1<<30, rejectFirst), prints)
	assert.Equal(t, EncodeChangeSet(d, 1<<30, func(string) bool { return true }), "")
}

func hugeDiff(n int) model.Diff {
	var d model.Diff
	s := model.StackDiff{Stack: "Big", Region: "us-east-1"}
	for i := 0; i < n; i++ {
		s.Changes = append(s.Changes, model.ResourceChange{LogicalID: fmt.Sprintf("Res%04d", i), ChangeType: model.ChangeUpdate, ResourceType: "AWS::SNS::Topic",
			PropertyChanges: []model.PropertyChange{{Path: "DisplayName", Old: model.StringValue(fmt.Sprintf("old-%d-%x", i, i*7919)), New: model.StringValue(fmt.Sprintf("new-%d-%x", i, i*104729))}}})
	}
	d.Stacks = append(d.Stacks, s)
	return d
}

func TestDecodeChangeSetRefuses(t *testing.T) {
	d := sampleDiff(t)
	digest := d.Digest()
	line := EncodeChangeSet(d, 20000, nil)
	data := strings.TrimSuffix(strings.TrimPrefix(line, "<!-- cdkd-action-changeset:v1 "), " -->")

	other := sampleDiff(t)
	other.Stacks[1].Changes[0].PropertyChanges[0].New = model.StringValue("tampered")
	// A block that names the header's digest but holds another change set.
	forged := envelopeLine(t, map[string]any{"v": 1, "digest": digest, "stacks": other.Canonical().Stacks})

	tests := []struct {
		name, body, err string
		mismatch        bool // the comment was edited: the deploy refuses it
	}{
		{name: "no block", body: comment(digest, ""), err: ErrNoChangeSet.Error()},
		{name: "header only", body: marker.Header{V: 1, Kind: "diff"}.String(), err: ErrNoChangeSet.Error()},
		{name: "block further down is not read", body: comment(digest, "") + line + "\n", err: ErrNoChangeSet.Error()},
		{name: "redacted on the way", body: comment(digest, strings.Replace(line, data[10:20], "***", 1)), err: "illegal base64"},
		{name: "not closed", body: comment(digest, strings.TrimSuffix(line, " -->")), err: "not closed"},
		{name: "another digest", body: comment(digest, EncodeChangeSet(other, 20000, nil)), err: "it records digest", mismatch: true},
		{name: "forged content", body: comment(digest, forged), err: "its digest is", mismatch: true},
		{name: "unknown version", body: comment(digest, envelopeLine(t, map[string]any{"v": 2, "digest": digest, "stacks": []any{}})), err: "unknown version 2"},
		{name: "empty envelope", body: comment(digest, envelopeLine(t, map[string]any{"v": 1, "digest": digest})), err: "neither stacks nor fingerprints"},
		{name: "not gzip", body: comment(digest, "<!-- cdkd-action-changeset:v1 "+base64.StdEncoding.EncodeToString([]byte("plain text, not gzip"))+" -->"), err: "invalid header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := DecodeChangeSet(tc.body, digest)
			assert.Assert(t, cs == nil)
			assert.Assert(t, is.ErrorContains(err, tc.err))
			assert.Equal(t, errors.Is(err, model.ErrChangeSetMismatch), tc.mismatch, err)
		})
	}
}

func envelopeLine(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(b)
	assert.NilError(t, err)
	assert.NilError(t, zw.Close())
	return changeSetPrefix + base64.StdEncoding.EncodeToString(gz.Bytes()) + changeSetSuffix
}

// The header on the first line still parses with the block under it.
func TestHeaderStillParses(t *testing.T) {
	d := sampleDiff(t)
	body := comment(d.Digest(), EncodeChangeSet(d, 20000, nil))
	h, ok := marker.Parse(body)
	assert.Assert(t, ok)
	assert.Equal(t, h.Digest, d.Digest())
}
