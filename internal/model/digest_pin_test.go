package model_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/cdkd"
	"github.com/cdkd-action/cdkd-action/internal/cdkd/cdkdtest"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/security/securitytest"
)

// TestDigestIsPinned pins the digest of the benchmarks' generated diff
// (50 stacks of 200 changes), without and with its security rows, and of
// values in every JSON spelling: a faster digest must compute the same
// fingerprint, or every reviewed PR comment would read as stale.
func TestDigestIsPinned(t *testing.T) {
	d, err := cdkd.DecodeDiff([]byte(cdkdtest.DiffJSON(50, 200)))
	assert.NilError(t, err)
	assert.Equal(t, d.Digest(), "v3:975330e4734fbfde87bbb9c484677f872456a971bdecfdc65dd0eacee4cab750")

	securitytest.AddRows(d)
	assert.Equal(t, len(d.Stacks[0].Security), 100)
	rows := sha256.New()
	for _, s := range d.Stacks {
		b, err := json.Marshal(s.Security) // the rows in their order
		assert.NilError(t, err)
		rows.Write(b)
	}
	assert.Equal(t, hex.EncodeToString(rows.Sum(nil)), "1999592a04fe844cdf0442ca6b9698054a6219ce8703326a46b7735eda972327")
	assert.Equal(t, d.Digest(), "v3:87c887de77c9859651e8ffa6c5b0133745320e8635a3532046e290afedc74e6b")

	values := []string{
		`{"b":[1,1.0,-0,1e3,1E+3,12345678901234567890123],"a":{"z":null,"y":true,"x":false},"c":{},"d":[]}`,
		` { "k" : "v\u00e9\"\\\/\n\t" , "k" : "last wins", "\u0061":"escaped name" } `,
		`"plain"`, `"esc\u0041ped"`, `"\ud83d\ude00 and a lone \ud800"`, "\"bad utf-8 \xff\"",
		`null`, `true`, `0.5`, `[[[]],{"":""}]`, `{"a":1} trailing`, `{"a":`, `not json`, `[1,]`,
		`{"Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":{"Fn::Join":["",["arn:",{"Ref":"AWS::Partition"}]]}}]}`,
	}
	var pc []model.PropertyChange
	for i, v := range values {
		pc = append(pc, model.PropertyChange{Path: string(rune('A' + i)), Old: model.JSONValue(v), New: model.JSONValue(v)})
	}
	spelled := model.Diff{Stacks: []model.StackDiff{{Stack: "S", Region: "r", Changes: []model.ResourceChange{
		{LogicalID: "R", ChangeType: model.ChangeUpdate, ResourceType: "AWS::X::Y", PropertyChanges: pc}}}}}
	assert.Equal(t, spelled.Digest(), "v3:0e55ac5becd0b044282091d261c09f62fe42fff1a0c671f6df092226d2228c7c")
}
