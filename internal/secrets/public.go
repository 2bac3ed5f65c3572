package secrets

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// MinUndecidedRunes is the length, in runes after trimming, below which a
// value whose secrecy the template cannot decide (AddUndecided) is not
// registered. Such a value is hidden where it stands anyway; registered, a
// short or common one ("prod", "us-east-1") would be masked in every later
// line of the job and redacted from every report.
const MinUndecidedRunes = 8

// public is what the templates write in public (see Set.Public).
type public struct {
	// joined holds every literal, each followed by a NUL, and starts
	// where each begins: one strings.Index over it tells which literals
	// hold a value.
	joined string
	starts []int
	lits   []string
	// oracles are the literals that hold a registered value, with the
	// sources of the values they hold.
	oracles map[string][]string
}

// Public tells the set the strings the cloud assembly's templates write as
// literals (assembly.Assembly.PublicLiterals): text the template makes
// public. Two rules follow, for every value the set holds, however it was
// added:
//
//   - a secret's occurrence that lies inside an occurrence of a literal
//     holding it is not redacted: redacting it ("***-v1" in a queue named
//     "fixture-queue-v1") would tell the secret by comparison with the
//     template, and the literal is public anyway. Oracles lists them, for
//     a notice that the value is not secret;
//   - a value only derived from a secret or undecided (AddUndecided, the
//     runner's parts around '&': addDerived) is not registered when it
//     occurs in a literal.
//
// The runner is not told: a value registered with ::add-mask:: stays
// registered, and the runner masks it inside the literal in the log.
// Calling Public again adds literals.
func (s *Set) Public(literals []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	have := s.pub.lits
	all := append(slices.Clone(have), literals...)
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) == len(have) {
		return
	}
	var b strings.Builder
	p := public{lits: all, oracles: s.pub.oracles, starts: make([]int, 0, len(all))}
	for _, l := range all {
		p.starts = append(p.starts, b.Len())
		b.WriteString(l)
		b.WriteByte(0)
	}
	p.joined = b.String()
	s.pub = p
	for v, e := range s.entries {
		if !e.whole {
			s.notePublic(v, e.sources)
		}
	}
}

// ForgetPublic forgets the public literals: every occurrence of a secret
// is redacted again, inside them too, as before Public. A deploy checking a
// review of a layout that redacted inside public literals (v1 to v3) calls
// it, so that its change set and report are computed as that review's were.
func (s *Set) ForgetPublic() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pub = public{}
	s.inside.Store(nil)
}

// notePublic records the literals that hold value v as oracles. s.mu is held.
func (s *Set) notePublic(v string, sources []string) {
	v = strings.TrimSpace(v)
	if !redactable(v) || s.pub.joined == "" || strings.IndexByte(v, 0) >= 0 {
		return // (a NUL could match across two literals)
	}
	changed := false
	for i := 0; i < len(s.pub.joined); {
		j := strings.Index(s.pub.joined[i:], v)
		if j < 0 {
			break
		}
		at := i + j
		k := sort.SearchInts(s.pub.starts, at+1) - 1
		lit := s.pub.lits[k]
		if s.pub.oracles == nil {
			s.pub.oracles = map[string][]string{}
		}
		if _, ok := s.pub.oracles[lit]; !ok {
			changed = true
		}
		for _, src := range sources {
			if !slices.Contains(s.pub.oracles[lit], src) {
				s.pub.oracles[lit] = append(s.pub.oracles[lit], src)
			}
		}
		// The next literal: one value is recorded once per literal.
		i = s.pub.starts[k] + len(lit) + 1
	}
	if changed {
		inside := make([]string, 0, len(s.pub.oracles))
		for lit := range s.pub.oracles {
			inside = append(inside, lit)
		}
		// One matcher finds them all in one pass over a text, however
		// many there are.
		m := newMatcher()
		m.add(inside)
		s.inside.Store(m)
	}
}

// inPublic reports whether v occurs in a public literal. s.mu is held.
func (s *Set) inPublic(v string) bool {
	v = strings.TrimSpace(v)
	return s.pub.joined != "" && strings.IndexByte(v, 0) < 0 && strings.Contains(s.pub.joined, v)
}

// AddUndecided registers a value whose secrecy the template cannot decide
// (an old value from state at a position the template no longer has): it
// is hidden where it stands by the caller, and registered, for the runner
// and for redaction by value, only when it has MinUndecidedRunes or more
// and occurs in no public literal (see Public). It reports whether it was
// registered.
func (s *Set) AddUndecided(value, source string) bool {
	return s.addDerived(value, source, MinUndecidedRunes, true)
}

// addDerived is the one registration path of a value that no input, template
// or state declares secret but that is derived from one (an undecided leaf;
// a part of a secret around '&', which the runner masks itself): it is
// registered only when it has minRunes or more (after trimming) and occurs
// in no public literal (see Public), so that public text is never taken for
// a secret. runner false leaves it out of MaskCommands, for a value the
// runner derives itself. A value registered already keeps its registration.
func (s *Set) addDerived(value, source string, minRunes int, runner bool) bool {
	if utf8.RuneCountInString(strings.TrimSpace(value)) < minRunes {
		return false
	}
	s.mu.Lock()
	pub := s.inPublic(value)
	s.mu.Unlock()
	if pub {
		return false
	}
	added, isNew := s.add(value, source, false)
	if isNew {
		if !runner {
			s.mu.Lock()
			s.entries[value].noRunner = true
			s.mu.Unlock()
		}
		for _, d := range structuredForms(value, source) {
			if d.whole {
				s.add(d.value, d.source, true)
			} else {
				s.addDerived(d.value, d.source, minRunes, runner)
			}
		}
	}
	return added
}

// Oracle is a public literal that holds a secret: the literal (which the
// caller must not print: it holds the value) and the sources of the
// secrets it holds.
type Oracle struct {
	Literal string
	Sources []string
}

// Oracles lists the public literals that hold a registered value, sorted.
func (s *Set) Oracles() []Oracle {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Oracle, 0, len(s.pub.oracles))
	for lit, srcs := range s.pub.oracles {
		src := slices.Clone(srcs)
		slices.Sort(src)
		out = append(out, Oracle{Literal: lit, Sources: src})
	}
	slices.SortFunc(out, func(a, b Oracle) int { return strings.Compare(a.Literal, b.Literal) })
	return out
}

// publicInside returns the matcher of the literals redaction must not
// redact inside (nil: none): read on every redaction, so without the lock.
func (s *Set) publicInside() *matcher { return s.inside.Load() }

// exemptPublic drops the spans that lie inside an occurrence, in text, of
// a public literal holding a secret (lits matches them; see Public).
// Occurrences that overlap count as one: text made of public literals is
// public.
func exemptPublic(text string, lits *matcher, spans []span) []span {
	if lits == nil || len(spans) == 0 {
		return spans
	}
	pub := lits.find(text, false) // sorted, merged
	if len(pub) == 0 {
		return spans
	}
	// One sweep, spans and occurrences by start: a span is inside an
	// occurrence when the occurrences starting at or before it reach its
	// end.
	sorted := slices.IsSortedFunc(spans, func(a, b span) int { return a.start - b.start })
	if !sorted {
		spans = slices.Clone(spans)
		slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	}
	out := make([]span, 0, len(spans))
	j, reach := 0, -1
	for _, sp := range spans {
		for ; j < len(pub) && pub[j].start <= sp.start; j++ {
			reach = max(reach, pub[j].end)
		}
		if sp.end > reach {
			out = append(out, sp)
		}
	}
	return out
}
