package model

import (
	"cmp"
	"encoding/json"
	"slices"
)

// Security changes (package security computes them): one row per element
// of access added or removed — a policy statement, a managed policy, a
// security group rule, an SSO item, a finding — with what it does to
// access. They ride in StackDiff.Security, so the change set, its digest
// and the report JSON carry them.

// SecurityKind is what an element is.
type SecurityKind string

const (
	SecurityStatementKind     SecurityKind = "statement"     // a policy statement (a Lambda permission is one)
	SecurityManagedPolicyKind SecurityKind = "managedPolicy" // a managed policy attached
	SecurityRuleKind          SecurityKind = "rule"          // a security group rule
	SecuritySSOKind           SecurityKind = "sso"           // an SSO permission set, assignment or access control attributes
	SecurityFindingKind       SecurityKind = "finding"       // a change CDK's diff does not look at (see SecurityFinding)
)

// SecurityOp says whether an element is added or removed. A changed element is
// one removed and one added.
type SecurityOp string

const (
	SecurityAdd    SecurityOp = "add"
	SecurityRemove SecurityOp = "remove"
)

// SecurityStatus is what an element's change does to access.
type SecurityStatus string

const (
	// SecurityBroadening: an added element no old one covers, a removed Deny no
	// new Deny covers, an added managed policy, SSO item or rule.
	SecurityBroadening SecurityStatus = "broadening"
	// SecurityNarrowed: an added element an old one covers (the change took
	// something away).
	SecurityNarrowed SecurityStatus = "narrowed"
	// SecurityUnresolved: covered only if a value not known before the deploy
	// (an intrinsic, a value cdkd could not resolve) equals the old one.
	// What cannot be evaluated may widen access: it counts as broadening
	// (fail closed), and is never counted as covered.
	SecurityUnresolved SecurityStatus = "unresolved"
	// SecurityUnknown: an element this package cannot read (an Fn::If statement,
	// a value redaction hides, a deleted resource whose state is not
	// known). It counts as broadening.
	SecurityUnknown SecurityStatus = "unknown"
	// SecurityRemoved is a removal that broadens nothing ("").
	SecurityRemoved SecurityStatus = ""
)

// CountsAsBroadening is the gate's rule: what may widen access needs
// approval, including what cannot be evaluated before the deploy (unknown,
// unresolved).
func (s SecurityStatus) CountsAsBroadening() bool {
	return s == SecurityBroadening || s == SecurityUnknown || s == SecurityUnresolved
}

// SecurityFinding names a risk CDK's diff does not look at.
type SecurityFinding string

const (
	FindingWildcardPrincipal    SecurityFinding = "wildcard-principal"
	FindingOpenIngress          SecurityFinding = "open-ingress"
	FindingCrossAccountTrust    SecurityFinding = "cross-account-trust"
	FindingBoundaryRemoved      SecurityFinding = "permissions-boundary-removed"
	FindingBoundaryChanged      SecurityFinding = "permissions-boundary-changed"
	FindingPublicAccessLoosened SecurityFinding = "public-access-block-loosened"
	// FindingPublicEndpoint: an endpoint published without authentication
	// (a Lambda function URL, an API Gateway method or route).
	FindingPublicEndpoint SecurityFinding = "public-endpoint"
)

// PolicyStatement is one policy statement, targets flattened and sorted.
type PolicyStatement struct {
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

// SecurityRule is one security group rule. The group is part of the rule: the
// same peer and ports on another group is another rule.
type SecurityRule struct {
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

// Ports renders a rule's ports for the table.
func (r SecurityRule) Ports() string {
	switch {
	case r.Protocol == "all":
		return "all"
	case r.FromPort == "" && r.ToPort == "":
		return ""
	case r.FromPort == r.ToPort:
		return r.FromPort
	case r.FromPort == "-1" || r.ToPort == "-1":
		return "all"
	}
	return r.FromPort + "-" + r.ToPort
}

// SecurityChange is one row of the table: one element added or removed.
type SecurityChange struct {
	Stack        string `json:"stack"`
	Region       string `json:"region,omitempty"`
	LogicalID    string `json:"logicalId"`
	ResourceType string `json:"resourceType"`
	// Property is where the element sits ("" for a resource that is
	// the element, a Lambda permission say).
	Property      string           `json:"property,omitempty"`
	Op            SecurityOp       `json:"op"`
	Kind          SecurityKind     `json:"kind"`
	Statement     *PolicyStatement `json:"statement,omitempty"`
	ManagedPolicy string           `json:"managedPolicy,omitempty"`
	Rule          *SecurityRule    `json:"rule,omitempty"`
	// Item is an SSO item or a finding row's text.
	Item     string            `json:"item,omitempty"`
	Findings []SecurityFinding `json:"findings,omitempty"`
	Status   SecurityStatus    `json:"status,omitempty"`
	// Note says why the status is what it is, when that is not obvious.
	Note string `json:"note,omitempty"`
}

// Key identifies an element by its content (not its status): equal
// elements on both sides of a change are no change. It is the JSON of the
// kind, property, statement, managed policy, rule and item.
func (c SecurityChange) Key() string {
	// Marshal cannot fail here: every field is a string, a bool or a
	// list of strings.
	b, _ := json.Marshal(securityKey{c.Kind, c.Property, c.Statement, c.ManagedPolicy, c.Rule, c.Item})
	return string(b)
}

// securityKey is a row's content, under names short enough to keep the
// key short: a security change keys every element of both sides.
type securityKey struct {
	K SecurityKind
	P string
	S *PolicyStatement
	M string
	R *SecurityRule
	I string
}

// SecurityBroadening reports a row the gate asks approval for.
func (c SecurityChange) Broadening() bool { return c.Status.CountsAsBroadening() }

// Group is which table of the report the row belongs to.
func (c SecurityChange) Group() string {
	switch c.Kind {
	case SecurityStatementKind:
		return "IAM statement changes"
	case SecurityManagedPolicyKind:
		return "Managed policy changes"
	case SecurityRuleKind:
		return "Security group changes"
	case SecuritySSOKind:
		return "SSO changes"
	}
	return "Findings"
}

// SortSecurity puts security rows in their stable order: by stack, resource, property,
// removed before added, then by content.
func SortSecurity(cs []SecurityChange) {
	// A diff's rows arrive sorted (package security sorts them, and the
	// pipeline sorts the diff again): checking costs one comparison a row.
	if slices.IsSortedFunc(cs, compareSecurity) {
		return
	}
	slices.SortStableFunc(cs, compareSecurity)
}

// compareSecurity orders two rows for SortSecurity. The content key is a
// JSON encoding: it is computed only for rows alike in everything else
// (cmp.Or would compute it for every pair, its arguments being evaluated
// first).
func compareSecurity(a, b SecurityChange) int {
	if c := cmp.Or(cmp.Compare(a.Stack, b.Stack), cmp.Compare(a.Region, b.Region), cmp.Compare(a.LogicalID, b.LogicalID),
		cmp.Compare(a.Property, b.Property), cmp.Compare(opOrder(a.Op), opOrder(b.Op)), cmp.Compare(a.Kind, b.Kind)); c != 0 {
		return c
	}
	return cmp.Compare(a.Key(), b.Key())
}

func opOrder(o SecurityOp) int {
	if o == SecurityRemove {
		return 0
	}
	return 1
}

// SecurityKeys are the rows in their canonical form (every field, JSON with a
// fixed field order), sorted: what a digest covers.
func SecurityKeys(cs []SecurityChange) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		b, _ := json.Marshal(c) // cannot fail, as in Key
		out[i] = string(b)
	}
	slices.Sort(out)
	return out
}
