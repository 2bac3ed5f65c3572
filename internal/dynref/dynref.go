// Package dynref parses CloudFormation dynamic references
// ({{resolve:service:...}}), the spelling by which a template reads a secret
// that cdkd stores unresolved and AWS receives resolved.
package dynref

import (
	"regexp"
	"strings"
)

// Service is the part after "resolve:".
type Service string

const (
	SecretsManager Service = "secretsmanager"
	SSM            Service = "ssm"
	SSMSecure      Service = "ssm-secure"
)

// Ref is one dynamic reference, split into CloudFormation's fields.
type Ref struct {
	// Raw is the whole spelling, braces included.
	Raw     string
	Service Service

	// Secrets Manager: secret-id:SecretString:json-key:version-stage:version-id.
	SecretID     string
	JSONKey      string
	VersionStage string
	VersionID    string

	// SSM and ssm-secure: parameter-name[:version].
	Parameter string
	Version   string
}

// Region returns the region named by an ARN secret id or parameter, or "".
func (r Ref) Region() string {
	id := r.SecretID
	if id == "" {
		id = r.Parameter
	}
	if !strings.HasPrefix(id, "arn:") {
		return ""
	}
	parts := strings.SplitN(id, ":", 6)
	if len(parts) < 6 {
		return ""
	}
	return parts[3]
}

var pattern = regexp.MustCompile(`\{\{resolve:(secretsmanager|ssm-secure|ssm):([^{}]*)\}\}`)

// FindAll returns every dynamic reference in s, in order of appearance.
func FindAll(s string) []Ref {
	if !strings.Contains(s, "{{resolve:") {
		return nil
	}
	var refs []Ref
	for _, m := range pattern.FindAllStringSubmatch(s, -1) {
		if r, ok := parse(m[0], Service(m[1]), m[2]); ok {
			refs = append(refs, r)
		}
	}
	return refs
}

// Parse parses a string that is exactly one dynamic reference.
func Parse(s string) (Ref, bool) {
	m := pattern.FindStringSubmatch(s)
	if m == nil || m[0] != s {
		return Ref{}, false
	}
	return parse(m[0], Service(m[1]), m[2])
}

func parse(raw string, svc Service, rest string) (Ref, bool) {
	r := Ref{Raw: raw, Service: svc}
	switch svc {
	case SecretsManager:
		id, tail := splitSecretID(rest)
		if id == "" {
			return Ref{}, false
		}
		r.SecretID = id
		if tail != "" {
			f := strings.Split(tail, ":")
			// f[0] is "SecretString" (the only supported field).
			get := func(i int) string {
				if i < len(f) {
					return f[i]
				}
				return ""
			}
			r.JSONKey, r.VersionStage, r.VersionID = get(1), get(2), get(3)
		}
	case SSM, SSMSecure:
		name, version := rest, ""
		if strings.HasPrefix(rest, "arn:") {
			// arn:partition:ssm:region:account:parameter/name[:version]
			parts := strings.SplitN(rest, ":", 7)
			if len(parts) == 7 {
				name, version = strings.Join(parts[:6], ":"), parts[6]
			}
		} else if i := strings.LastIndex(rest, ":"); i >= 0 {
			name, version = rest[:i], rest[i+1:]
		}
		if name == "" {
			return Ref{}, false
		}
		r.Parameter, r.Version = name, version
	}
	return r, true
}

// splitSecretID separates the secret id (which may be an ARN with colons of
// its own) from the ":SecretString:..." tail.
func splitSecretID(rest string) (id, tail string) {
	if strings.HasPrefix(rest, "arn:") {
		// arn:partition:secretsmanager:region:account:secret:name
		parts := strings.SplitN(rest, ":", 8)
		if len(parts) < 7 {
			return rest, ""
		}
		id = strings.Join(parts[:7], ":")
		if len(parts) == 8 {
			tail = parts[7]
		}
		return id, tail
	}
	if i := strings.Index(rest, ":"); i >= 0 {
		return rest[:i], rest[i+1:]
	}
	return rest, ""
}
