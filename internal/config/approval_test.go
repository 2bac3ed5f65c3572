package config

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestApprovalInputs(t *testing.T) {
	c, err := Load(TableCommands, env(nil), nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, c.Approval, Approval{RequireApproval: ApprovalNever, SecurityApprovalLabel: "security-approved", Approvers: []string{}})

	c, err = Load(TableCommands, env(map[string]string{
		"INPUT_REQUIRE-APPROVAL": "broadening", "INPUT_REQUIRED-APPROVALS": "2",
		"INPUT_APPROVERS": "alice, bob\nrelease-bot[bot]", "INPUT_SECURITY-APPROVAL-LABEL": "iam-ok",
	}), nil)
	assert.NilError(t, err)
	assert.DeepEqual(t, c.Approval, Approval{RequireApproval: ApprovalBroadening, SecurityApprovalLabel: "iam-ok", RequiredApprovals: 2,
		Approvers: []string{"alice", "bob", "release-bot[bot]"}})

	for _, tt := range []struct{ input, value, want string }{
		{"REQUIRE-APPROVAL", "always", `input require-approval: expected never, broadening or any-change, got "always"`},
		{"REQUIRED-APPROVALS", "-1", `input required-approvals: expected a whole number of approving reviews from 0 to 100, got "-1"`},
		{"REQUIRED-APPROVALS", "two", `input required-approvals: expected a whole number of approving reviews from 0 to 100, got "two"`},
		{"APPROVERS", "@alice", `input approvers: expected GitHub logins separated by whitespace or commas, got "@alice"`},
		{"SECURITY-APPROVAL-LABEL", " ", "input security-approval-label: expected a label name, got an empty value"},
	} {
		_, err := Load(TableCommands, env(map[string]string{"INPUT_" + tt.input: tt.value}), nil)
		assert.Error(t, err, tt.want)
		assert.Assert(t, IsInputError(err))
	}
}
