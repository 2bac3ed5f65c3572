package assembly

import (
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
)

const resolvePrefix = "{{resolve:"

// scanRefs finds every dynamic reference in s. Unlike dynref.FindAll it also
// accepts ${Name} placeholders inside a reference (spelled from Fn::Sub or
// Fn::Join parts), so a reference built at deploy time is still found.
func scanRefs(s string) []dynref.Ref {
	var refs []dynref.Ref
	for {
		i := strings.Index(s, resolvePrefix)
		if i < 0 {
			return refs
		}
		s = s[i:]
		raw, ok := cutRef(s)
		if !ok {
			s = s[len(resolvePrefix):]
			continue
		}
		if r, ok := parseRef(raw); ok {
			refs = append(refs, r)
		}
		s = s[len(raw):]
	}
}

// cutRef returns the reference s starts with, up to its closing "}}",
// stepping over ${...} placeholders.
func cutRef(s string) (string, bool) {
	for k := len(resolvePrefix); k < len(s); {
		switch {
		case strings.HasPrefix(s[k:], "${"):
			end := strings.IndexByte(s[k+2:], '}')
			if end < 0 {
				return "", false
			}
			k += 2 + end + 1
		case strings.HasPrefix(s[k:], "}}"):
			return s[:k+2], true
		case s[k] == '{' || s[k] == '}':
			return "", false
		default:
			k++
		}
	}
	return "", false
}

// parseRef parses one reference; placeholders are swapped for brace- and
// colon-free stand-ins so dynref can split the fields, then put back.
func parseRef(raw string) (dynref.Ref, bool) {
	if r, ok := dynref.Parse(raw); ok {
		return r, true
	}
	var vars []string
	var b strings.Builder
	body := raw[len(resolvePrefix) : len(raw)-2]
	for {
		i := strings.Index(body, "${")
		if i < 0 {
			b.WriteString(body)
			break
		}
		end := strings.IndexByte(body[i:], '}')
		b.WriteString(body[:i])
		b.WriteString(standIn(len(vars)))
		vars = append(vars, body[i:i+end+1])
		body = body[i+end+1:]
	}
	r, ok := dynref.Parse(resolvePrefix + b.String() + "}}")
	if !ok {
		return dynref.Ref{}, false
	}
	restore := func(s string) string {
		for i, v := range vars {
			s = strings.ReplaceAll(s, standIn(i), v)
		}
		return s
	}
	r.Raw = raw
	r.SecretID, r.JSONKey, r.VersionStage, r.VersionID = restore(r.SecretID), restore(r.JSONKey), restore(r.VersionStage), restore(r.VersionID)
	r.Parameter, r.Version = restore(r.Parameter), restore(r.Version)
	return r, true
}

func standIn(i int) string { return "\x00" + strconv.Itoa(i) + "\x00" }
