package model

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestDecideTokenCase(t *testing.T) {
	whole := TokenEvidence{Sites: []TokenSite{{Path: "DisplayName", Whole: true}}}
	embedded := TokenEvidence{Sites: []TokenSite{{Path: "DisplayName", Whole: true}, {Path: "Tags.0.Value"}}}
	for _, tc := range []struct {
		name            string
		state, template TokenEvidence
		want            TokenCase
	}{
		{"the state record decides", whole, embedded, TokenCase{Placement: TokenWhole, Paths: []string{"DisplayName"}, Basis: TokenFromState}},
		{"one embedded token makes the resource embedded", embedded, TokenEvidence{}, TokenCase{Placement: TokenEmbedded, Paths: []string{"Tags.0.Value"}, Basis: TokenFromState}},
		{"the template when the record says nothing", TokenEvidence{Why: "not read"}, embedded, TokenCase{Placement: TokenEmbedded, Paths: []string{"Tags.0.Value"}, Basis: TokenFromTemplate}},
		{"neither: unknown, and why", TokenEvidence{Why: "the state record was not read"}, TokenEvidence{Why: "no assembly was given"},
			TokenCase{Why: "the state record was not read; no assembly was given"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.DeepEqual(t, DecideTokenCase(tc.state, tc.template), tc.want)
		})
	}
}
