package security

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// Kind is what an element is.
type Kind string

const (
	KindStatement     Kind = "statement"     // a policy statement (a Lambda permission is one)
	KindManagedPolicy Kind = "managedPolicy" // a managed policy attached
	KindRule          Kind = "rule"          // a security group rule
	KindSSO           Kind = "sso"           // an SSO permission set, assignment or access control attributes
	KindFinding       Kind = "finding"       // a change CDK's diff does not look at (see Finding)
)

// Op says whether an element is added or removed. A changed element is
// one removed and one added.
type Op string

const (
	OpAdd    Op = "add"
	OpRemove Op = "remove"
)

// Status is what an element's change does to access.
type Status string

const (
	// Broadening: an added element no old one covers, a removed Deny no
	// new Deny covers, an added managed policy, SSO item or rule.
	Broadening Status = "broadening"
	// Narrowed: an added element an old one covers (the change took
	// something away).
	Narrowed Status = "narrowed"
	// Unresolved: covered only if a value not known before the deploy
	// (an intrinsic, a value cdkd could not resolve) equals the old one.
	// Never a broadening by accident, never counted as covered either.
	Unresolved Status = "unresolved"
	// Unknown: an element this package cannot read (an Fn::If statement,
	// a value redaction hides, a deleted resource whose state is not
	// known). It counts as broadening.
	Unknown Status = "unknown"
	// Removed is a removal that broadens nothing ("").
	Removed Status = ""
)

// CountsAsBroadening is the gate's rule: what may widen access needs
// approval.
func (s Status) CountsAsBroadening() bool { return s == Broadening || s == Unknown }

// Finding names a risk CDK's diff does not look at.
type Finding string

const (
	FindingWildcardPrincipal    Finding = "wildcard-principal"
	FindingOpenIngress          Finding = "open-ingress"
	FindingCrossAccountTrust    Finding = "cross-account-trust"
	FindingBoundaryRemoved      Finding = "permissions-boundary-removed"
	FindingBoundaryChanged      Finding = "permissions-boundary-changed"
	FindingPublicAccessLoosened Finding = "public-access-block-loosened"
)

// Statement is one policy statement, targets flattened and sorted.
type Statement struct {
	Sid          string   `json:"sid,omitempty"`
	Effect       string   `json:"effect,omitempty"`
	Principals   []string `json:"principals,omitempty"` // "*", "AWS:arn", "Service:name", ...
	NotPrincipal bool     `json:"notPrincipal,omitempty"`
	Actions      []string `json:"actions,omitempty"`
	NotAction    bool     `json:"notAction,omitempty"`
	Resources    []string `json:"resources,omitempty"`
	NotResource  bool     `json:"notResource,omitempty"`
	// Condition is the condition block as one line of JSON, keys sorted.
	Condition string `json:"condition,omitempty"`
	// Raw is the statement as written when it could not be read.
	Raw string `json:"raw,omitempty"`
}

// Rule is one security group rule. The group is part of the rule: the
// same peer and ports on another group is another rule.
type Rule struct {
	Direction string `json:"direction"` // ingress or egress
	Group     string `json:"group"`
	Protocol  string `json:"protocol"` // tcp, udp, icmp, icmpv6, all, or as written
	FromPort  string `json:"fromPort,omitempty"`
	ToPort    string `json:"toPort,omitempty"`
	Peer      string `json:"peer"`
	// PeerKind is cidr, cidrv6, group or prefixList.
	PeerKind    string `json:"peerKind"`
	Description string `json:"description,omitempty"`
	// Raw is the rule as written when it could not be read.
	Raw string `json:"raw,omitempty"`
}

// Change is one row of the table: one element added or removed.
type Change struct {
	Stack        string `json:"stack"`
	Region       string `json:"region,omitempty"`
	LogicalID    string `json:"logicalId"`
	ResourceType string `json:"resourceType"`
	// Property is where the element sits ("" for a resource that is
	// the element, a Lambda permission say).
	Property      string     `json:"property,omitempty"`
	Op            Op         `json:"op"`
	Kind          Kind       `json:"kind"`
	Statement     *Statement `json:"statement,omitempty"`
	ManagedPolicy string     `json:"managedPolicy,omitempty"`
	Rule          *Rule      `json:"rule,omitempty"`
	// Item is an SSO item or a finding row's text.
	Item     string    `json:"item,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	Status   Status    `json:"status,omitempty"`
	// Note says why the status is what it is, when that is not obvious.
	Note string `json:"note,omitempty"`
}

// key identifies an element's content, for telling unchanged elements
// apart from changed ones.
func (c Change) key() string {
	b, _ := json.Marshal(struct {
		K Kind
		P string
		S *Statement
		M string
		R *Rule
		I string
	}{c.Kind, c.Property, c.Statement, c.ManagedPolicy, c.Rule, c.Item})
	return string(b)
}

// Broadening reports a row the gate asks approval for.
func (c Change) Broadening() bool { return c.Status.CountsAsBroadening() }

// Group is which table of the report the row belongs to.
func (c Change) Group() string {
	switch c.Kind {
	case KindStatement:
		return "IAM statement changes"
	case KindManagedPolicy:
		return "Managed policy changes"
	case KindRule:
		return "Security group changes"
	case KindSSO:
		return "SSO changes"
	}
	return "Findings"
}

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
	}
	return strings.ReplaceAll(string(f), "-", " ")
}

// Sort puts rows in their stable order: by stack, resource, property,
// removed before added, then by content.
func Sort(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.Region, b.Region), cmp.Compare(a.LogicalID, b.LogicalID),
			cmp.Compare(a.Property, b.Property), cmp.Compare(opOrder(a.Op), opOrder(b.Op)), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.key(), b.key()))
	})
}

func opOrder(o Op) int {
	if o == OpRemove {
		return 0
	}
	return 1
}

// Keys are the rows in their canonical form (every field, JSON with a
// fixed field order), sorted: what a digest covers.
func Keys(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		b, _ := json.Marshal(c)
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}
