package security

import (
	"regexp"
	"strings"
)

// tri is a three-valued answer: a value not known before the deploy makes
// "maybe", which is neither covered nor broadening.
type tri int

const (
	no tri = iota
	maybe
	yes
)

func both(a, b tri) tri { return min(a, b) }

// eq compares two values; one not known before the deploy makes it maybe
// when it could turn out to be the other.
func eq(a, b string) tri {
	switch {
	case a == b:
		return yes
	case couldBe(a, b) || couldBe(b, a):
		return maybe
	}
	return no
}

// couldBe reports whether symbolic text a, each ${...} standing for any
// text, can read as b.
func couldBe(a, b string) bool {
	if !symbolic(a) {
		return false
	}
	return glob(placeholders.ReplaceAllString(strings.ReplaceAll(a, "*", "\x00"), "*"), strings.ReplaceAll(b, "*", "\x00"))
}

var placeholders = regexp.MustCompile(`\$\{[^}]*\}`)

// statementCovers says whether w grants (or denies) everything n does:
// same effect, condition and principal, and n's actions and resources
// within w's. A Not* list covers the other way round: the wider statement
// excludes less.
func statementCovers(w, n Statement) tri {
	if w.Raw != "" || n.Raw != "" || w.Effect != n.Effect || w.NotAction != n.NotAction || w.NotResource != n.NotResource || w.NotPrincipal != n.NotPrincipal {
		return no
	}
	t := yes
	if w.Condition != "" {
		t = eq(w.Condition, n.Condition) // no condition on w: w is wider
	}
	t = both(t, setCovers(w.Principals, n.Principals, w.NotPrincipal, false))
	t = both(t, setCovers(w.Actions, n.Actions, w.NotAction, true))
	t = both(t, setCovers(w.Resources, n.Resources, w.NotResource, false))
	return t
}

// setCovers says whether every value of narrow matches a pattern of wide
// (reversed for a Not* list). Actions match without case.
func setCovers(wide, narrow []string, not, fold bool) tri {
	if not {
		wide, narrow = narrow, wide
	}
	if len(wide) == 0 && len(narrow) == 0 {
		return yes
	}
	t := yes
	for _, n := range narrow {
		best := no
		for _, w := range wide {
			best = max(best, matchValue(w, n, fold))
		}
		t = both(t, best)
	}
	return t
}

func matchValue(pattern, v string, fold bool) tri {
	if fold {
		pattern, v = strings.ToLower(pattern), strings.ToLower(v)
	}
	if pattern == "*" || glob(pattern, v) {
		return yes
	}
	if symbolic(pattern) && glob(placeholders.ReplaceAllString(pattern, "*"), v) || couldBe(v, pattern) {
		return maybe
	}
	if strings.HasSuffix(pattern, ":*") && !strings.Contains(pattern, "${") && strings.Count(pattern, ":") == 1 && strings.HasPrefix(v, strings.TrimSuffix(pattern, "*")) {
		return yes // "AWS:*"
	}
	return no
}

// glob matches IAM's wildcards: * any run, ? one character. A wildcard in
// v is matched as the character, so "s3:Get*" matches "s3:GetObject*" and
// not the other way round: containment, not overlap.
func glob(pattern, v string) bool {
	p, s := []rune(pattern), []rune(v)
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]) && p[pi] != '*':
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
