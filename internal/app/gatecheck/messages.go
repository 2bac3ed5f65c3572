package gatecheck

import "strings"

// joinReason is "prefix: reason" without saying anything twice: when reason
// already starts with prefix, or with the last ": "-separated parts of it,
// those words are not repeated ("cdkd deploy failed" + "cdkd deploy failed:
// boom" is "cdkd deploy failed: boom", never "cdkd deploy failed: cdkd
// deploy failed: boom").
func joinReason(prefix, reason string) string {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return prefix
	}
	// cdkd's "Error: " label adds nothing to a message that says it failed.
	if rest, ok := strings.CutPrefix(reason, "Error: "); ok && hasOverlap(prefix, rest) {
		reason = rest
	}
	lower := strings.ToLower(reason)
	for tail := prefix; tail != ""; {
		if rest, ok := cutFold(lower, reason, strings.ToLower(tail)); ok {
			return prefix + rest
		}
		_, after, found := strings.Cut(tail, ": ")
		if !found {
			break
		}
		tail = after
	}
	return prefix + ": " + reason
}

// hasOverlap reports whether reason starts with prefix or with its last
// ": "-separated parts.
func hasOverlap(prefix, reason string) bool {
	return joinReason(prefix, reason) != prefix+": "+reason
}

// cutFold reports whether reason (lower is its lower case) starts with tail
// as whole words, and returns what follows it.
func cutFold(lower, reason, tail string) (string, bool) {
	if !strings.HasPrefix(lower, tail) {
		return "", false
	}
	rest := reason[len(tail):]
	if rest != "" && !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, ".") && !strings.HasPrefix(rest, "(") {
		return "", false
	}
	return rest, true
}
