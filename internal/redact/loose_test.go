package redact

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// cdkd's error text in a result (its stderr lines, a deploy's reason and
// its events' errors, a resolution's errors) is redacted as error output:
// a secret upper-cased or wrapped is hidden too; the deploy's own words are
// redacted exactly.
func TestCdkdErrorTextIsRedactedLoosely(t *testing.T) {
	set := secrets.NewSet()
	set.Add("ENC0DED-pw/Secret+Value=77?x", "test")
	assert.DeepEqual(t, Lines(set, []string{"Error: value ENC0DED-PW/SEC", "   RET+VALUE=77?X rejected"}),
		[]string{"Error: value ***", "   *** rejected"})
	d := model.DeployResult{Message: "Error: ENC0DED-PW/SECRET+VALUE=77?X", Stacks: []model.DeployedStack{{Stack: "App",
		Resources: []model.DeployedResource{{LogicalID: "Queue", Error: "name enc0ded-pw/secret+value=77?x taken"}}}}}
	Deploy(&d, Input{Set: set})
	assert.Equal(t, d.Message, "Error: ***")
	assert.Equal(t, d.Stacks[0].Resources[0].Error, "name *** taken")
	rr := model.DriftResolution{Error: "revert failed:\n  ENC0DED-PW/SECRET+VALUE=77?X"}
	Resolution(&rr, set)
	assert.Equal(t, rr.Error, "revert failed: ***")
}
