package config

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Approval is what a deploy needs approved, and by whom.
type Approval struct {
	// RequireApproval is which security changes need an approval.
	RequireApproval ApprovalScope
	// SecurityApprovalLabel approves them when a person who may approve
	// added it after the review and before the merge (gate.CountApprovals).
	SecurityApprovalLabel string
	// RequiredApprovals is how many APPROVED reviews of the reviewed head
	// a deploy needs, whatever it changes.
	RequiredApprovals int
	// Approvers, when set, are the only logins whose reviews count.
	Approvers []string
}

// ApprovalScope is the require-approval input.
type ApprovalScope string

const (
	ApprovalNever      ApprovalScope = "never"
	ApprovalBroadening ApprovalScope = "broadening"
	ApprovalAnyChange  ApprovalScope = "any-change"
)

// loginPattern is a GitHub login; a bot's ends in "[bot]".
var loginPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$`)
})

func loadApproval(values map[string]string) (Approval, error) {
	a := Approval{
		RequireApproval:       ApprovalScope(strings.TrimSpace(values["require-approval"])),
		SecurityApprovalLabel: strings.TrimSpace(values["security-approval-label"]),
		Approvers:             splitList(values["approvers"]),
	}
	if a.RequireApproval == "" {
		a.RequireApproval = ApprovalNever
	}
	switch a.RequireApproval {
	case ApprovalNever, ApprovalBroadening, ApprovalAnyChange:
	default:
		return Approval{}, bad("require-approval", "expected never, broadening or any-change, got %q", a.RequireApproval)
	}
	if a.SecurityApprovalLabel == "" {
		return Approval{}, bad("security-approval-label", "expected a label name, got an empty value")
	}
	if v := strings.TrimSpace(values["required-approvals"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 {
			return Approval{}, bad("required-approvals", "expected a whole number of approving reviews from 0 to 100, got %q", v)
		}
		a.RequiredApprovals = n
	}
	for _, l := range a.Approvers {
		if !loginPattern().MatchString(l) {
			return Approval{}, bad("approvers", "expected GitHub logins separated by whitespace or commas, got %q", l)
		}
	}
	return a, nil
}
