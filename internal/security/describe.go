package security

import (
	"fmt"
	"strings"
)

// Describe is an element in one line of plain text, for a refusal that
// names rows and for tests: "Allow s3:GetObject on arn:... to AWS:...".
func Describe(c Change) string {
	switch {
	case c.Statement != nil:
		return describeStatement(*c.Statement)
	case c.Rule != nil:
		return describeRule(*c.Rule)
	case c.Kind == KindManagedPolicy:
		return "managed policy " + c.ManagedPolicy
	case c.Kind == KindFinding && len(c.Findings) > 0:
		return FindingText(c.Findings[0]) + ": " + c.Item
	}
	return c.Item
}

func describeStatement(s Statement) string {
	if s.Raw != "" {
		return "unreadable statement " + s.Raw
	}
	var b strings.Builder
	b.WriteString(s.Effect)
	list := func(neg bool, pos, not string, vals []string) {
		if len(vals) == 0 {
			return
		}
		word := pos
		if neg {
			word = not
		}
		if word != "" {
			b.WriteString(" " + word)
		}
		b.WriteString(" " + strings.Join(vals, ", "))
	}
	list(s.NotAction, "", "NotAction", s.Actions)
	list(s.NotResource, "on", "on NotResource", s.Resources)
	list(s.NotPrincipal, "to", "to NotPrincipal", s.Principals)
	if s.Condition != "" {
		b.WriteString(" when " + s.Condition)
	}
	return b.String()
}

func describeRule(r Rule) string {
	if r.Raw != "" {
		return fmt.Sprintf("unreadable %s rule of %s %s", r.Direction, r.Group, r.Raw)
	}
	ports := r.Ports()
	if ports != "" && ports != "all" {
		ports = ":" + ports
	} else {
		ports = ""
	}
	dir := "from"
	if r.Direction == "egress" {
		dir = "to"
	}
	return fmt.Sprintf("%s %s %s%s %s %s", r.Group, r.Direction, r.Protocol, ports, dir, r.Peer)
}

// Where names a row's resource for a message: "Role1ABCC5F0 (AWS::IAM::Role) in App".
func Where(c Change) string {
	return fmt.Sprintf("%s (%s) in %s", c.LogicalID, c.ResourceType, c.Stack)
}
