package reporters

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestDeployConclusion(t *testing.T) {
	for _, tc := range []struct {
		outcome DeployOutcome
		want    string
	}{
		{OutcomeDeployed, "success"},
		{OutcomeVerified, "success"},
		{OutcomeCancelled, "cancelled"},
		{OutcomeRefused, "failure"},
		{OutcomeFailed, "failure"},
		{OutcomePartial, "failure"},
		{OutcomeLocked, "failure"},
		{"", "failure"},
	} {
		assert.Equal(t, DeployConclusion(tc.outcome), tc.want, string(tc.outcome))
	}
}
