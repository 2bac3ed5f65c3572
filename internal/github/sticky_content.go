package github

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/marker"
)

// A sticky object (our PR comment, our tracking issue) records a hash of
// what it shows in its hidden header, so that a run with the same report
// writes nothing. The header's run link stays out of the comparison: it
// changes every run, and the object then keeps linking the run that first
// posted this content.

// contentField is the header field holding the content hash.
const contentField = "content"

// Stamp returns h recording the hash of content, the text that decides
// whether an object needs a write (the run link left out by the caller).
func Stamp(h marker.Header, content string) marker.Header {
	sum := sha256.Sum256([]byte(content))
	extra := make(map[string]string, len(h.Extra)+1)
	for k, v := range h.Extra {
		extra[k] = v
	}
	extra[contentField] = hex.EncodeToString(sum[:8])
	h.Extra = extra
	return h
}

// Unchanged reports whether an object holding old needs no write to hold
// new: the bytes are equal, or both hidden headers carry a content hash
// (see Stamp) and are equal but for the run link. Without a hash on both
// sides only equal bytes count: a header alone says nothing of the body.
func Unchanged(old, new string) bool {
	if old == new {
		return true
	}
	o, ok1 := marker.Parse(old)
	n, ok2 := marker.Parse(new)
	if !ok1 || !ok2 || o.Extra[contentField] == "" || n.Extra[contentField] == "" {
		return false
	}
	o.Run, n.Run = "", ""
	return o.String() == n.String()
}

// SameBody reports whether a comment holding old needs no write to hold
// new where what it shows must be what the run would write (a review):
// the bytes are equal but for the run link its header names, in the
// header and wherever the body shows it. A comment edited since it was
// written is written again, whatever its header says.
func SameBody(old, new string) bool {
	if old == new {
		return true
	}
	if !Unchanged(old, new) {
		return false
	}
	o, _ := marker.Parse(old)
	n, _ := marker.Parse(new)
	_, ob, _ := strings.Cut(old, "\n")
	_, nb, _ := strings.Cut(new, "\n")
	if o.Run != "" && n.Run != "" {
		ob = strings.ReplaceAll(ob, o.Run, n.Run)
	}
	return ob == nb
}

// Spoofs words the warning for each look-alike (a comment or an issue
// Split set aside): where it is and who wrote it instead of author.
func Spoofs[T Comment | Issue](items []T, author string) []string {
	var out []string
	for _, it := range items {
		switch v := any(it).(type) {
		case Comment:
			out = append(out, SpoofWarning("comment", v.HTMLURL, v.AuthorLogin, author))
		case Issue:
			out = append(out, SpoofWarning("issue", v.HTMLURL, v.AuthorLogin, author))
		}
	}
	return out
}

// SpoofWarning is the one wording for a look-alike Split set aside: what
// it is (comment, issue), where, and who wrote it instead of author.
func SpoofWarning(what, url, by, author string) string {
	return fmt.Sprintf("ignored %s %s by %s: it carries cdkd-action's header but was not written by %s (possible spoof)", what, url, by, author)
}
