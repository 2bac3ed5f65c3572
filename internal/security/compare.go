package security

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// Resource is one changed resource of a scrutinized type, with its values
// on each side.
type Resource struct {
	// Stack is the stack's display path; Account its account id ("" when
	// the assembly does not say: environment-agnostic).
	Stack, Region, Account string
	LogicalID, Type        string
	// Old and New are the resource's top-level properties before and
	// after the deploy: every property of a resource created or deleted,
	// the changed ones of an update (plus, for a type whose every
	// property counts, the unchanged ones). Nil when the resource does not
	// exist on that side. A property missing from a map is absent.
	Old, New map[string]json.RawMessage
	// OldUnknown and NewUnknown say why a side's values could not be read
	// (a deleted resource without its state, a created one without the
	// cloud assembly); "" when they were.
	OldUnknown, NewUnknown string
	// Partial says why the elements may be incomplete (an update of a
	// whole-resource type without the template's unchanged values).
	Partial string
	// Hidden are changed properties whose value redaction hid on a side:
	// what changed cannot be read, and each is one unknown row.
	Hidden []string
}

// Changes is every security change of the given resources, in their
// order, each resource's rows sorted: removed before added.
func Changes(rs []Resource) []Change {
	var out []Change
	for _, r := range rs {
		out = AppendChanges(out, r)
	}
	return out
}

// ResourceChanges is one resource's security changes.
func ResourceChanges(r Resource) []Change { return AppendChanges(nil, r) }

// AppendChanges appends one resource's security changes to out, in place:
// a caller gathering values one resource at a time keeps no list of them,
// and a row (a large struct) is not copied from list to list. It keeps
// nothing of r (a row holds no map): the caller may reuse r's maps.
func AppendChanges(out []Change, r Resource) []Change {
	if !Scrutinized(r.Type) || noRows(r) {
		return out
	}
	return appendRows(out, r)
}

// appendRows appends a scrutinized resource's rows to out, built whether
// or not it has any (AppendChanges skips the ones that have none).
func appendRows(out []Change, r Resource) []Change {
	start := len(out)
	entry := scrutinized().Types[r.Type]
	base := Change{Stack: r.Stack, Region: r.Region, LogicalID: r.LogicalID, ResourceType: r.Type}
	unknownSide := func(op Op, why string) {
		c := base
		c.Op, c.Kind, c.Status = op, unknownKind(entry.Kind), Unknown
		c.Item, c.Note = "values not known", why
		out = append(out, c)
	}
	switch {
	case r.Old == nil && r.NewUnknown != "":
		if grants(entry) {
			unknownSide(OpAdd, r.NewUnknown)
		}
		return out
	case r.New == nil && r.OldUnknown != "":
		if entry.Kind == kindIdentityPolicyResource || entry.Kind == kindResourcePolicyResource {
			// Its statements are removed: a Deny among them would broaden.
			unknownSide(OpRemove, r.OldUnknown)
		}
		return out
	}
	hidden := map[string]bool{}
	for _, p := range r.Hidden {
		if _, read := entry.Properties[p]; read || wholeResource(entry.Kind) || watched[r.Type][p] {
			hidden[p] = true
		}
	}
	for _, p := range sortedKeys(hidden) {
		c := base
		c.Property, c.Op, c.Kind, c.Status = p, OpAdd, unknownKind(entry.Kind), Unknown
		if entry.Properties[p] == propManagedPolicies {
			c.Kind = KindManagedPolicy
		} else if entry.Properties[p] == propIngressRules || entry.Properties[p] == propEgressRules {
			c.Kind = KindRule
		}
		c.Item, c.Note = "value hidden ("+model.Hidden+")", "redaction hides this value, so what changed cannot be read"
		out = append(out, c)
		if wholeResource(entry.Kind) {
			return out // the one element is unreadable
		}
	}
	strip := func(m map[string]json.RawMessage) map[string]json.RawMessage {
		if m == nil || len(hidden) == 0 {
			return m
		}
		o := map[string]json.RawMessage{}
		for k, v := range m {
			if !hidden[k] {
				o[k] = v
			}
		}
		return o
	}
	// Both sides' elements share one list, on the stack when they fit (a
	// statement or two a side, most resources).
	var buf [4]Change
	els := appendElements(buf[:0], r, entry, strip(r.Old))
	olds := els[:len(els):len(els)]
	news := appendElements(els, r, entry, strip(r.New))[len(olds):]
	var props []string
	for _, side := range [][]Change{olds, news} {
		for _, e := range side {
			props = append(props, e.Property)
		}
	}
	slices.Sort(props)
	for _, p := range slices.Compact(props) {
		out = appendDiff(out, filter(olds, p), filter(news, p))
	}
	if len(hidden) == 0 {
		out = appendFindings(out, r)
	}
	for i := start; i < len(out); i++ {
		c := &out[i]
		c.Stack, c.Region, c.LogicalID, c.ResourceType = r.Stack, r.Region, r.LogicalID, r.Type
		if r.Partial != "" && c.Kind != KindFinding {
			c.Note = strings.TrimPrefix(c.Note+"; "+r.Partial, "; ")
		}
	}
	return out
}

// noRows reports a resource that has no rows, before anything is built
// for it: both sides known and none of its properties read (Reads).
func noRows(r Resource) bool {
	rd := ReadsOf(r.Type)
	return r.OldUnknown == "" && r.NewUnknown == "" && rd.None(r.Old) && rd.None(r.New) &&
		!slices.ContainsFunc(r.Hidden, rd.Property)
}

// grants reports a type that exists to grant access (a policy, a
// permission, a rule, an SSO item, a principal with policies, a security
// group), whose creation is a security change whatever its values. A
// type that may carry a policy (a queue's redrive policy, a key's policy)
// is one only through the values.
func grants(e typeEntry) bool {
	if e.Kind != "" {
		return true
	}
	for _, c := range e.Properties {
		switch c {
		case propManagedPolicies, propInlineIdentityPolicies, propIngressRules, propEgressRules:
			return true
		}
	}
	return false
}

func unknownKind(kind string) Kind {
	switch kind {
	case kindIngressRuleResource, kindEgressRuleResource:
		return KindRule
	case kindSsoAssignment, kindSsoACAConfig:
		return KindSSO
	}
	return KindStatement
}

// appendElements appends one side's elements to out (Op and Status
// unset).
func appendElements(out []Change, r Resource, entry typeEntry, props map[string]json.RawMessage) []Change {
	if props == nil {
		return out
	}
	// Every property is decoded where every property counts (or a
	// created permission set's others are its item); otherwise only the
	// ones elements are read from, each where it is read.
	var vals map[string]any
	if wholeResource(entry.Kind) || entry.Kind == kindSsoPermissionSet {
		vals = make(map[string]any, len(props))
		for k, raw := range props {
			vals[k] = decodeProperty(raw)
		}
	}
	resourcePolicy := func(prop string) bool {
		if entry.Kind == kindResourcePolicyResource {
			return true
		}
		return entry.Properties[prop] == propInlineResourcePolicy && !strings.Contains(r.Type, "::IAM::") || prop == "AssumeRolePolicyDocument"
	}
	addStatements := func(prop string, sts []Statement) {
		// Each element points into sts (a list of its own), not at a copy.
		for i := range sts {
			st := &sts[i]
			c := Change{Property: prop, Kind: KindStatement, Statement: st}
			if resourcePolicy(prop) && wildcardPrincipal(*st) {
				c.Findings = append(c.Findings, FindingWildcardPrincipal)
			}
			if prop == "AssumeRolePolicyDocument" {
				if accts := trustedAccounts(*st, r.Account); len(accts) > 0 {
					c.Findings = append(c.Findings, FindingCrossAccountTrust)
					c.Note = crossAccountNote(accts, r.Account)
				}
			}
			out = append(out, c)
		}
	}
	switch entry.Kind {
	case kindLambdaPermission:
		st := lambdaStatement(vals)
		c := Change{Kind: KindStatement, Statement: &st}
		if wildcardPrincipal(st) {
			c.Findings = []Finding{FindingWildcardPrincipal}
		}
		return append(out, c)
	case kindIngressRuleResource, kindEgressRuleResource:
		dir := "ingress"
		if entry.Kind == kindEgressRuleResource {
			dir = "egress"
		}
		group, err := str(vals["GroupId"])
		if err != nil {
			if group, err = str(vals["GroupName"]); err != nil {
				group = "?"
			}
		}
		rl := rule(vals, dir, group)
		return append(out, ruleChange("", rl))
	case kindSsoAssignment, kindSsoACAConfig:
		return append(out, ssoItem(vals))
	}
	if entry.Kind == kindSsoPermissionSet && r.Old == nil && props != nil {
		// A permission set created is an SSO item in itself (its name,
		// instance, boundary); its policies are rows of their own.
		rest := map[string]any{}
		for k, v := range vals {
			if _, own := entry.Properties[k]; !own {
				rest[k] = v
			}
		}
		out = append(out, ssoItem(rest))
	}
	for _, prop := range read(props, entry) {
		v, decoded := vals[prop]
		if !decoded {
			v = decodeProperty(props[prop])
		}
		switch entry.Properties[prop] {
		case propPolicyDocument, propInlineResourcePolicy:
			if sts, ok := statements(v); ok {
				addStatements(prop, sts)
			}
		case propInlineIdentityPolicies:
			list, ok := v.([]any)
			if !ok {
				addStatements(prop, []Statement{{Raw: compact(v)}})
				continue
			}
			for _, p := range list {
				doc := any(nil)
				if m, ok := p.(map[string]any); ok {
					doc = m["PolicyDocument"]
				}
				sts, ok := statements(doc)
				if !ok {
					sts = []Statement{{Raw: compact(p)}}
				}
				addStatements(prop, sts)
			}
		case propManagedPolicies:
			arns, err := strs(v)
			if err != nil {
				out = append(out, Change{Property: prop, Kind: KindManagedPolicy, ManagedPolicy: compact(v)})
				continue
			}
			for _, a := range arns {
				out = append(out, Change{Property: prop, Kind: KindManagedPolicy, ManagedPolicy: a})
			}
		case propIngressRules, propEgressRules:
			dir := "ingress"
			if entry.Properties[prop] == propEgressRules {
				dir = "egress"
			}
			list, ok := v.([]any)
			if !ok {
				list = []any{v}
			}
			for _, x := range list {
				out = append(out, ruleChange(prop, rule(x, dir, "${"+r.LogicalID+"}")))
			}
		}
	}
	return out
}

// read is which of a side's properties the type's elements are read
// from, sorted.
func read(props map[string]json.RawMessage, entry typeEntry) []string {
	out := make([]string, 0, len(props))
	for k := range props {
		if _, ok := entry.Properties[k]; ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// decodeProperty is a property's value; one that is not JSON is its text
// (shown as it is, read as nothing).
func decodeProperty(raw json.RawMessage) any {
	v, err := decode(raw)
	if err != nil {
		return string(raw)
	}
	return v
}

// ssoItem is an SSO resource's values as one element.
func ssoItem(vals map[string]any) Change {
	item := compact(vals)
	if r, err := resolveTree(any(vals)); err == nil {
		item = compact(r)
	}
	return Change{Kind: KindSSO, Item: item}
}

func ruleChange(prop string, rl Rule) Change {
	c := Change{Property: prop, Kind: KindRule, Rule: &rl}
	if openIngress(rl) {
		c.Findings = []Finding{FindingOpenIngress}
	}
	return c
}

func crossAccountNote(accts []string, own string) string {
	if own == "" {
		return fmt.Sprintf("trusts account %s; the stack's account is not known (environment-agnostic), so it may be its own", strings.Join(accts, ", "))
	}
	return fmt.Sprintf("trusts account %s, not the stack's (%s)", strings.Join(accts, ", "), own)
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil // most resources: nothing to sort, nothing to allocate
	}
	return slices.Sorted(maps.Keys(m))
}
