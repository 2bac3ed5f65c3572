package awsx

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The state record holds what cdkd deployed, intrinsics resolved and
// references not: a token joined into a longer string is recorded inside
// it, so the record tells a whole-value token from an embedded one.
func TestTokenSites(t *testing.T) {
	st := &State{Resources: map[string]ResourceState{"R": {
		PhysicalID: "{{resolve:ssm-secure:/not-a-property}}",
		Properties: map[string]any{
			"DisplayName": "{{resolve:ssm-secure:/a}}",
			"Tags":        []any{map[string]any{"Key": "k", "Value": "x-{{resolve:ssm-secure:/b}}"}},
			"Other":       "{{resolve:ssm:/plain}}",
			"Two":         "{{resolve:ssm-secure:/a}}{{resolve:ssm-secure:/b}}",
		},
	}}}
	assert.DeepEqual(t, st.TokenSites("R", dynref.SSMSecure), []model.TokenSite{
		{Path: "DisplayName", Whole: true}, {Path: "Tags.0.Value"}, {Path: "Two"},
	})
	assert.Assert(t, st.TokenSites("Missing", dynref.SSMSecure) == nil)
	var none *State
	assert.Assert(t, none.TokenSites("R", dynref.SSMSecure) == nil)
}
