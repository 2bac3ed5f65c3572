package fingerprint

import (
	"fmt"
	"slices"
	"strings"
)

// Unrecorded are the secret positions of one stack whose fingerprint a
// deploy did not record, grouped by why: nothing about fingerprints is
// silent. The zero Unrecorded is empty and ready.
type Unrecorded struct {
	reasons []string
	// unknown and kept hold, per reason, the positions left with no
	// fingerprint at all and those keeping one recorded before.
	unknown, kept map[string][]string
}

// Add adds a position left unrecorded, and why; rec is the stack's record
// as read before the deploy (nil: none), which may keep a fingerprint of it.
func (u *Unrecorded) Add(why string, pos Position, rec *Record) {
	if u.unknown == nil {
		u.unknown, u.kept = map[string][]string{}, map[string][]string{}
	}
	if !slices.Contains(u.reasons, why) {
		u.reasons = append(u.reasons, why)
	}
	name := strings.TrimPrefix(pos.String(), pos.Stack+" ")
	if rec.Lookup(pos) != nil {
		u.kept[why] = append(u.kept[why], name)
		return
	}
	u.unknown[why] = append(u.unknown[why], name)
}

// Warnings says, per reason, which positions stay unknown and which keep
// the fingerprint recorded before. A position whose resource this deploy
// did not touch keeps a fingerprint that still holds, which is no news;
// when the deploy's events are unknown (mayBeStale), a kept fingerprint may
// no longer match what AWS has, and that is said.
func (u *Unrecorded) Warnings(stack string, mayBeStale bool) []string {
	var out []string
	for _, why := range u.reasons {
		if unknown := u.unknown[why]; len(unknown) > 0 {
			out = append(out, fmt.Sprintf("%s: no fingerprint recorded for %d secret position(s), which stay unknown (%s): %s. The next diff cannot tell whether their values changed until a deploy records them.",
				stack, len(unknown), strings.Join(unknown, ", "), why))
		}
		if kept := u.kept[why]; len(kept) > 0 && mayBeStale {
			out = append(out, fmt.Sprintf("%s: no fingerprint recorded for %d secret position(s), which keep the one recorded before though this deploy may have changed their values (%s): %s.",
				stack, len(kept), strings.Join(kept, ", "), why))
		}
	}
	return out
}
