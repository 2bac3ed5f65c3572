package assembly

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A template is read once, numbers as written; a section that is not an
// object, or a template that is not one, is an error naming it, never an
// empty template (which would read as "no secrets here").
func TestDecodeTemplate(t *testing.T) {
	tpl, err := decodeTemplate([]byte(`{"Parameters":{"P":{"NoEcho":true}},"Resources":{"Q":{"Type":"AWS::SQS::Queue","Properties":{"DelaySeconds":1.50}}},"Other":[]}`))
	assert.NilError(t, err)
	typ, props, _, ok := tpl.resource("Q")
	assert.Assert(t, ok)
	assert.Equal(t, typ, "AWS::SQS::Queue")
	assert.DeepEqual(t, props, map[string]any{"DelaySeconds": json.Number("1.50")})
	assert.Assert(t, tpl.Outputs == nil)

	for in, want := range map[string]string{
		`[]`:                       "the template is not a JSON object",
		`{"Resources":[]}`:         "the template's Resources is not a JSON object",
		`{"Outputs":"x"}`:          "the template's Outputs is not a JSON object",
		`{"Resources":{"A":{}`:     "decode JSON",
		`{"Parameters":{},"x":1,}`: "decode JSON",
	} {
		_, err := decodeTemplate([]byte(in))
		assert.Assert(t, is.ErrorContains(err, want), in)
	}
}
