package security

import (
	"encoding/json"
	"slices"
	"strings"
)

// statements reads a policy document (an object, or JSON text in a
// string). ok is false for a value that is no policy document at all (a
// redrive policy shares the name): it has no elements. A statement that
// cannot be read becomes one with Raw set.
func statements(v any) (out []Statement, ok bool) {
	if s, isStr := v.(string); isStr {
		if d, err := decode(json.RawMessage(s)); err == nil {
			v = d
		}
	}
	doc, isMap := v.(map[string]any)
	if !isMap {
		// Text that is no JSON (a value redaction hid, "***"), an Fn::If:
		// whatever it is cannot be read, and is not waved through.
		return []Statement{{Raw: compact(v)}}, true
	}
	if _, _, intr := intrinsic(v); intr {
		return []Statement{{Raw: compact(v)}}, true
	}
	raw, has := doc["Statement"]
	if !has {
		return nil, false // a JSON property named *Policy* that holds no policy (a redrive policy)
	}
	list, isList := raw.([]any)
	if !isList {
		list = []any{raw} // a single statement object is allowed
	}
	if len(list) > 0 {
		out = make([]Statement, 0, len(list)) // nil stays nil
	}
	for _, e := range list {
		out = append(out, statement(e))
	}
	return out, true
}

// statement reads one statement; one it cannot read keeps its text in Raw
// and what it could read of its effect.
func statement(v any) Statement {
	m, ok := v.(map[string]any)
	if !ok {
		return Statement{Raw: compact(v)}
	}
	unread := func() Statement {
		st := Statement{Raw: compact(v)}
		st.Effect, _ = m["Effect"].(string)
		return st
	}
	var st Statement
	st.Sid, _ = m["Sid"].(string)
	var err error
	if st.Effect, err = str(m["Effect"]); err != nil || (st.Effect != "Allow" && st.Effect != "Deny") {
		return unread()
	}
	for k := range m {
		switch k {
		case "Sid", "Effect", "Action", "NotAction", "Resource", "NotResource", "Principal", "NotPrincipal", "Condition":
		default:
			return unread() // an intrinsic at statement level, an unknown key
		}
	}
	pick := func(pos, neg string) ([]string, bool, error) {
		if x, ok := m[neg]; ok {
			s, err := strs(x)
			return s, true, err
		}
		s, err := strs(m[pos])
		return s, false, err
	}
	if st.Actions, st.NotAction, err = pick("Action", "NotAction"); err != nil {
		return unread()
	}
	if st.Resources, st.NotResource, err = pick("Resource", "NotResource"); err != nil {
		return unread()
	}
	p, neg := m["Principal"], false
	if x, ok := m["NotPrincipal"]; ok {
		p, neg = x, true
	}
	if st.Principals, err = principals(p); err != nil {
		return unread()
	}
	st.NotPrincipal = neg
	if c, ok := m["Condition"]; ok {
		r, err := resolveTree(c)
		if err != nil {
			return unread()
		}
		st.Condition = compact(r)
	}
	return st
}

// principals flattens a principal block: "*", or "AWS:...", "Service:...".
func principals(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok {
		return []string{s}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errUnparsed
	}
	if _, _, intr := intrinsic(v); intr {
		return nil, errUnparsed
	}
	var out []string
	for kind, x := range m {
		vals, err := strs(x)
		if err != nil {
			return nil, err
		}
		for _, s := range vals {
			out = append(out, kind+":"+s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// lambdaStatement is a Lambda permission as the statement it adds to the
// function's resource policy, the way cdk diff shows it.
func lambdaStatement(props map[string]any) Statement {
	st := Statement{Effect: "Allow"}
	fail := func() Statement { return Statement{Effect: "Allow", Raw: compact(props)} }
	var err error
	if st.Actions, err = strs(props["Action"]); err != nil {
		return fail()
	}
	if st.Resources, err = strs(props["FunctionName"]); err != nil {
		return fail()
	}
	if p, ok := props["Principal"]; ok {
		s, err := str(p)
		if err != nil {
			return fail()
		}
		st.Principals = []string{lambdaPrincipal(s)}
	}
	cond := map[string]map[string]any{}
	add := func(op, key, prop string) error {
		if x, ok := props[prop]; ok {
			s, err := str(x)
			if err != nil {
				return err
			}
			if cond[op] == nil {
				cond[op] = map[string]any{}
			}
			cond[op][key] = s
		}
		return nil
	}
	for _, c := range [][3]string{
		{"ArnLike", "AWS:SourceArn", "SourceArn"},
		{"StringEquals", "AWS:SourceAccount", "SourceAccount"},
		{"StringEquals", "aws:PrincipalOrgID", "PrincipalOrgID"},
		{"StringEquals", "lambda:FunctionUrlAuthType", "FunctionUrlAuthType"},
		{"StringEquals", "lambda:EventSourceToken", "EventSourceToken"},
	} {
		if add(c[0], c[1], c[2]) != nil {
			return fail()
		}
	}
	if len(cond) > 0 {
		st.Condition = compact(cond)
	}
	return st
}

// lambdaPrincipal is a permission's Principal as a policy names it: a
// service, an account or an ARN, or "*".
func lambdaPrincipal(s string) string {
	switch {
	case s == "*":
		return "*"
	case strings.HasSuffix(s, ".amazonaws.com") || strings.HasSuffix(s, ".amazonaws.com.cn"):
		return "Service:" + s
	}
	return "AWS:" + s
}

// wildcardPrincipal reports an Allow whose principal is anyone.
func wildcardPrincipal(st Statement) bool {
	switch {
	case st.Effect != "Allow":
		return false
	case st.NotPrincipal:
		return true // everyone but the few it names
	}
	return slices.ContainsFunc(st.Principals, func(p string) bool { return p == "*" || p == "AWS:*" })
}

// trustedAccounts are the accounts other than own an Allow statement's AWS
// principals name (an account id, or an ARN in one).
func trustedAccounts(st Statement, own string) []string {
	if st.Effect != "Allow" || st.NotPrincipal {
		return nil
	}
	var out []string
	for _, p := range st.Principals {
		v, ok := strings.CutPrefix(p, "AWS:")
		if !ok {
			continue
		}
		acct := accountOf(v)
		if acct != "" && acct != own && !slices.Contains(out, acct) {
			out = append(out, acct)
		}
	}
	return out
}

// accountOf is the account id a principal names literally ("" when it
// names none, or only through ${AWS::AccountId}).
func accountOf(p string) string {
	if isAccount(p) {
		return p
	}
	p = placeholders.ReplaceAllString(p, "x") // ${AWS::Partition} holds colons
	if parts := strings.Split(p, ":"); len(parts) >= 5 && strings.HasPrefix(p, "arn:") && isAccount(parts[4]) {
		return parts[4]
	}
	return ""
}

func isAccount(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
