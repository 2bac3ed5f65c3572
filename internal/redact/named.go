package redact

import (
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// A name built from a secret cannot be hidden (seed 000): cdkd needs the
// name to find the resource again, AWS shows it in the name, the ARN and
// every resource that refers to it, and cdkd keeps it in the physical id.
// cdkd-action keeps redacting the value wherever it prints it ("***-v1"), and
// says once per position that redacting it there is all it can do.

// NamedAfter is one resource whose name a NoEcho value or a secret
// reference fills, whole or in part.
type NamedAfter struct {
	Stack, LogicalID string
	// Path is the naming property ("QueueName").
	Path string
	// Source is the NoEcho parameter's name, or the reference's spelling.
	Source string
}

// isNameProperty is the rule discovery uses for a name: a top-level
// property called *Name (QueueName, BucketName, FunctionName, ...).
func isNameProperty(path string) bool {
	return strings.HasSuffix(path, "Name") && !strings.ContainsAny(path, ".[")
}

// namedAfter lists the positions of st where a secret is part of a
// resource's name, in st's order, once each.
func namedAfter(stack string, st assembly.Stack) []NamedAfter {
	var out []NamedAfter
	seen := map[NamedAfter]bool{}
	for _, p := range st.Positions {
		if p.Kind != assembly.KindResource || !p.Secure || !isNameProperty(p.Path) {
			continue
		}
		n := NamedAfter{Stack: stack, LogicalID: p.LogicalID, Path: p.Path, Source: p.Reference}
		if p.Source == model.SecretNoEcho {
			n.Source = p.Parameter
		}
		if n.Source == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// diffNamedAfter lists, for every stack of a diff (nested ones included)
// the assembly holds, the resources named after a secret.
func diffNamedAfter(stacks []model.StackDiff, parent string, pos Positions) []NamedAfter {
	var out []NamedAfter
	for _, s := range stacks {
		if st, ok := lookupNested(pos, s.Stack, s.Region, parent); ok && st.Unknown == "" {
			out = append(out, namedAfter(nestedName(parent, s.Stack), st)...)
		}
		out = append(out, diffNamedAfter(s.Children, nestedName(parent, s.Stack), pos)...)
	}
	return out
}

// NamedAfterNotes says, once per position, that a secret is part of a
// resource's name: redacted where cdkd-action prints it, shown by AWS. Names
// are redacted with set. The notes are not changes: they do not enter the
// digest.
func NamedAfterNotes(named []NamedAfter, set *secrets.Set) []string {
	var notes []string
	seen := map[string]bool{}
	for _, n := range named {
		note := fmt.Sprintf("The value of `%s` is part of the name of `%s` (%s in %s): AWS shows it there, and in its ARN and every resource that refers to it; cdkd-action redacts it where it prints it, but cannot hide it in AWS. Do not use a secret as a name.",
			set.Redact(n.Source), set.Redact(n.LogicalID), set.Redact(n.Path), set.Redact(n.Stack))
		if !seen[note] {
			seen[note] = true
			notes = append(notes, note)
		}
	}
	return notes
}
