package model

import "encoding/json"

// appendSecurityJSON appends json.Marshal(c) to b, byte for byte, without
// reflection: the digest encodes every row (SecurityKeys), and a security
// change compares every element of both sides by its Key.
// TestSecurityJSONIsMarshal holds it to json.Marshal; a field added to
// SecurityChange, PolicyStatement or SecurityRule must be added here.
func appendSecurityJSON(b []byte, c SecurityChange) []byte {
	b = append(b, '{')
	start := len(b)
	b = jsonField(b, "stack", c.Stack, false)
	b = jsonField(b, "region", c.Region, true)
	b = jsonField(b, "logicalId", c.LogicalID, false)
	b = jsonField(b, "resourceType", c.ResourceType, false)
	b = jsonField(b, "property", c.Property, true)
	b = jsonField(b, "op", string(c.Op), false)
	b = jsonField(b, "kind", string(c.Kind), false)
	if c.Statement != nil {
		b = appendStatementJSON(append(b, `,"statement":`...), c.Statement)
	}
	b = jsonField(b, "managedPolicy", c.ManagedPolicy, true)
	if c.Rule != nil {
		b = appendRuleJSON(append(b, `,"rule":`...), c.Rule)
	}
	b = jsonField(b, "item", c.Item, true)
	if len(c.Findings) > 0 {
		b = append(b, `,"findings":[`...)
		for i, f := range c.Findings {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, string(f))
		}
		b = append(b, ']')
	}
	b = jsonField(b, "status", string(c.Status), true)
	b = jsonField(b, "note", c.Note, true)
	return append(firstMember(b, start), '}')
}

// appendKeyJSON appends Key's JSON: json.Marshal of the row's content
// fields under one-letter names, none omitted, a nil statement or rule
// null.
func appendKeyJSON(b []byte, c SecurityChange) []byte {
	b = append(b, `{"K":`...)
	b = appendJSONString(b, string(c.Kind))
	b = append(b, `,"P":`...)
	b = appendJSONString(b, c.Property)
	b = append(b, `,"S":`...)
	if c.Statement == nil {
		b = append(b, "null"...)
	} else {
		b = appendStatementJSON(b, c.Statement)
	}
	b = append(b, `,"M":`...)
	b = appendJSONString(b, c.ManagedPolicy)
	b = append(b, `,"R":`...)
	if c.Rule == nil {
		b = append(b, "null"...)
	} else {
		b = appendRuleJSON(b, c.Rule)
	}
	b = append(b, `,"I":`...)
	b = appendJSONString(b, c.Item)
	return append(b, '}')
}

func appendStatementJSON(b []byte, st *PolicyStatement) []byte {
	b = append(b, '{')
	n := len(b)
	b = jsonField(b, "sid", st.Sid, true)
	b = jsonField(b, "effect", st.Effect, true)
	b = jsonStrings(b, "principals", st.Principals)
	b = jsonFlag(b, "notPrincipal", st.NotPrincipal)
	b = jsonStrings(b, "actions", st.Actions)
	b = jsonFlag(b, "notAction", st.NotAction)
	b = jsonStrings(b, "resources", st.Resources)
	b = jsonFlag(b, "notResource", st.NotResource)
	b = jsonField(b, "condition", st.Condition, true)
	b = jsonField(b, "raw", st.Raw, true)
	return append(firstMember(b, n), '}')
}

func appendRuleJSON(b []byte, r *SecurityRule) []byte {
	b = append(b, '{')
	n := len(b)
	b = jsonField(b, "direction", r.Direction, false)
	b = jsonField(b, "group", r.Group, false)
	b = jsonField(b, "protocol", r.Protocol, false)
	b = jsonField(b, "fromPort", r.FromPort, true)
	b = jsonField(b, "toPort", r.ToPort, true)
	b = jsonField(b, "peer", r.Peer, false)
	b = jsonField(b, "peerKind", r.PeerKind, false)
	b = jsonField(b, "description", r.Description, true)
	b = jsonField(b, "raw", r.Raw, true)
	return append(firstMember(b, n), '}')
}

// The members are written each after a comma; firstMember drops the
// comma of an object's first (the object's members start at n).
func firstMember(b []byte, n int) []byte {
	if len(b) > n && b[n] == ',' {
		return append(b[:n], b[n+1:]...)
	}
	return b
}

func jsonField(b []byte, name, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, v)
}

func jsonStrings(b []byte, name string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":[`...)
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
	}
	return append(b, ']')
}

func jsonFlag(b []byte, name string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	return append(b, `":true`...)
}

// appendJSONString quotes s as json.Marshal does: printable ASCII other
// than what it escapes is written as it is, anything else by json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
