package security

import (
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The element types are the model's (StackDiff.Security carries them);
// these names are the package's own.
type (
	Kind      = model.SecurityKind
	Op        = model.SecurityOp
	Status    = model.SecurityStatus
	Finding   = model.SecurityFinding
	Statement = model.PolicyStatement
	Rule      = model.SecurityRule
	Change    = model.SecurityChange
)

const (
	KindStatement     = model.SecurityStatementKind
	KindManagedPolicy = model.SecurityManagedPolicyKind
	KindRule          = model.SecurityRuleKind
	KindSSO           = model.SecuritySSOKind
	KindFinding       = model.SecurityFindingKind

	OpAdd    = model.SecurityAdd
	OpRemove = model.SecurityRemove

	Broadening = model.SecurityBroadening
	Narrowed   = model.SecurityNarrowed
	Unresolved = model.SecurityUnresolved
	Unknown    = model.SecurityUnknown
	Removed    = model.SecurityRemoved

	FindingWildcardPrincipal    = model.FindingWildcardPrincipal
	FindingOpenIngress          = model.FindingOpenIngress
	FindingCrossAccountTrust    = model.FindingCrossAccountTrust
	FindingBoundaryRemoved      = model.FindingBoundaryRemoved
	FindingBoundaryChanged      = model.FindingBoundaryChanged
	FindingPublicAccessLoosened = model.FindingPublicAccessLoosened
	FindingPublicEndpoint       = model.FindingPublicEndpoint
)

// Sort puts rows in their stable order (see model.SortSecurity).
func Sort(cs []Change) { model.SortSecurity(cs) }

// FindingText is a finding for a reader.
func FindingText(f Finding) string {
	switch f {
	case FindingWildcardPrincipal:
		return "wildcard principal on a resource policy"
	case FindingOpenIngress:
		return "ingress open to the internet"
	case FindingCrossAccountTrust:
		return "role trusts another account"
	case FindingBoundaryRemoved:
		return "permissions boundary removed"
	case FindingBoundaryChanged:
		return "permissions boundary changed"
	case FindingPublicAccessLoosened:
		return "S3 public access block loosened"
	case FindingPublicEndpoint:
		return "endpoint published without authentication"
	}
	return strings.ReplaceAll(string(f), "-", " ")
}
