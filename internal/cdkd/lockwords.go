package cdkd

import (
	"regexp"
	"strings"
	"sync"
)

// LockSaid is what cdkd's output says of one stack's state lock.
type LockSaid int

const (
	// LockSilent: cdkd said nothing of it (cdkd 0.284 states a release
	// only with --verbose), so it may still be held.
	LockSilent LockSaid = iota
	// LockReleased: cdkd said it released it ("Lock released for stack:
	// StackA (us-east-1)").
	LockReleased
	// LockMayNotBeReleased: cdkd said it may not be ("Force-quit: stack
	// lock may not be released."), or that releasing it failed.
	LockMayNotBeReleased
)

var (
	// A statement that a lock was not, or may not be, released. Checked
	// first: "may not be released" holds the word "released".
	notReleasedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:may|might|could|can|will)\s*(?:not|n't)\s+(?:have\s+)?(?:be(?:en)?\s+)?releas|\bnot\s+(?:been\s+|be\s+)?released\b|\b(?:failed|unable)\s+to\s+release\b|\bcould\s*(?:not|n't)\s+release\b`)
	})
	// A statement that a lock was released: "Lock released for stack: S",
	// "released the lock", "released lock for S". Advice ("release it
	// with", "to manually release the lock") is no such statement.
	releasedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\block\s+released\b|\breleased\s+(?:the\s+|its\s+)?(?:stack\s+)?lock\b`)
	})
	// The stack a lock line names: "for stack: S (r)", "for stack 'S'",
	// "force-unlock S".
	lockStackRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:for stack:?\s+'?|force-unlock\s+)([A-Za-z][A-Za-z0-9-]*)`)
	})
)

// LockWords reads, per target stack, what cdkd said of its lock in its
// stderr tail and stdout. A statement naming a stack counts for that stack
// only; one naming none ("stack locks may not be released") counts for
// every target when it denies a release, and for the only target when it
// claims one (with several, it cannot be told which). A stack cdkd both
// said was released and may not be is "may not be released". Without
// targets the answer is under the zero Target.
func LockWords(res Result, targets []Target) map[Target]LockSaid {
	out := map[Target]LockSaid{}
	if len(targets) == 0 {
		targets = []Target{{}}
	}
	set := func(stack string, said LockSaid, all bool) {
		for _, t := range targets {
			if (all || t.Stack == stack || t.Stack == "") && out[t] != LockMayNotBeReleased {
				out[t] = said
			}
		}
	}
	lines := append(append([]string(nil), res.StderrTail...), plainLines(res.Stdout)...)
	for _, l := range lines {
		l = StripANSI(l)
		if !strings.Contains(strings.ToLower(l), "releas") {
			continue
		}
		var stacks []string
		for _, m := range lockStackRE().FindAllStringSubmatch(l, -1) {
			stacks = append(stacks, m[1])
		}
		switch {
		case notReleasedRE().MatchString(l):
			if len(stacks) == 0 {
				set("", LockMayNotBeReleased, true)
			}
			for _, s := range stacks {
				set(s, LockMayNotBeReleased, false)
			}
		case releasedRE().MatchString(l) && !strings.Contains(l, "force-unlock"):
			if len(stacks) == 0 && len(targets) == 1 {
				set("", LockReleased, true)
			}
			for _, s := range stacks {
				set(s, LockReleased, false)
			}
		}
	}
	return out
}
