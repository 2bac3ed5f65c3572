package publisher

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// The report JSON is encoded stack by stack for speed; it must be exactly
// what json.Marshal writes, and every part of it must pass the redactor.
func TestEncodeReportIsMarshal(t *testing.T) {
	d, err := cdkd.DecodeDiff([]byte(cdkdtest.DiffJSON(3, 8)))
	assert.NilError(t, err)
	// What json.Marshal escapes, in a stack the encoder writes by itself.
	d.Stacks[1].Changes[0].LogicalID = "Q<&>\u2028\n"
	diff := model.NewDiffResult(model.Origin{Label: "prod", RunURL: "https://x/run"}, "1111111", d.Digest(), d)
	diff.Notes = []string{"a note"}
	for name, v := range map[string]any{
		"diff":        diff,
		"failed diff": model.FailedDiffResult(model.Origin{}, "", "boom", []string{"line"}),
		"drift":       model.DriftResult{Header: model.Header{SchemaVersion: model.SchemaVersion, Kind: model.KindDrift}, Stacks: []model.StackDrift{}},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(v)
			assert.NilError(t, err)
			var got bytes.Buffer
			assert.NilError(t, encodeReport(&got, v, func(b []byte) []byte { return b }))
			assert.Equal(t, got.String(), string(want)+"\n")
		})
	}

	set := secrets.NewSet()
	set.Add("topic-5-new", "test")
	set.Add("https://x/run", "test")
	var got bytes.Buffer
	assert.NilError(t, encodeReport(&got, diff, set.RedactBytes))
	assert.Assert(t, !strings.Contains(got.String(), "topic-5-new"), "a stack's value passed unredacted")
	assert.Assert(t, !strings.Contains(got.String(), "https://x/run"), "the head passed unredacted")
	assert.Assert(t, json.Valid(got.Bytes()))
}
