// Package secrets holds every secret value discovered for a run and the one
// redactor that every outgoing byte of cdkd-action passes through.
//
// The runner masks values registered with ::add-mask:: in its own log, but
// everything we post through the API (PR comments, check runs, issues, job
// summary, report files) bypasses the runner, so the action must redact by
// itself, and at least as thoroughly as the runner does.
package secrets

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// MinRedactRunes is the length, in runes after trimming surrounding
// whitespace, below which a value is NOT redacted by value.
//
// Replacing a short value such as "a", "no" or "1" wherever it occurs would
// shred every report. Such values are still registered with the runner
// (MaskCommands returns them when they hold a letter or digit) and Len
// counts them, but Redact and Contains ignore them: a field known to hold a
// secret must be replaced by position (the whole field, whatever its value)
// where it is rendered.
const MinRedactRunes = 4

// minPatternBytes is the shortest encoded form that Redact looks for. Shorter
// encodings (for example the base64 of the last byte of a value) would match
// ordinary text. It must stay >= 4: the matcher keys patterns by their first
// four bytes, and a replacement ("***") must be shorter than what it replaces
// for matcher.settle to terminate.
const minPatternBytes = 4

// Replacement is what Redact writes in place of a secret; the same as the runner's.
const Replacement = "***"

// Set holds every secret value discovered for this run. Safe for concurrent
// use. The zero value is an empty set ready to use.
type Set struct {
	mu      sync.Mutex
	entries map[string]*entry // keyed by the value as added
	// pending holds the entries added (or changed) since their patterns
	// last went into m.
	pending []entry

	// mm guards m: a redaction reads m under the read lock; learning the
	// pending entries extends it in place under the write lock, so each
	// value's patterns are built once, however Add and Redact interleave.
	mm sync.RWMutex
	m  *matcher
	// ml matches the values of at least MinLooseRunes in their canonical
	// form (RedactLoose), guarded by mm too.
	ml *matcher

	// pub is what the templates write in public (see Public), guarded by mu;
	// inside are its literals that hold a value, longest first, for
	// redaction to skip (see exemptPublic).
	pub    public
	inside atomic.Pointer[matcher]
}

type entry struct {
	value   string
	sources []string
	// whole: a re-serialization of a structured secret, redacted and
	// registered with the runner whole, never line by line.
	whole bool
	// noRunner: a value only derived (see addDerived) that the runner
	// derives itself; MaskCommands leaves it out. Adding it otherwise
	// clears it.
	noRunner bool
}

// NewSet returns an empty Set.
func NewSet() *Set { return &Set{} }

// Add registers a value; source is a human description used only in
// diagnostics (e.g. "NoEcho parameter StackA/DbPassword default"), never the
// value. Empty and whitespace-only values are ignored and Add returns false;
// adding a value again only records the extra source.
//
// A value that is a JSON object or array (a structured secret) also
// registers its re-serializations and its leaves: see structuredForms. A
// value holding "&" also registers the sections the runner masks on
// either side of it: see ampersandSections.
func (s *Set) Add(value, source string) bool {
	added, isNew := s.add(value, source, false)
	if added && !isNew {
		s.mu.Lock()
		s.entries[value].noRunner = false
		s.mu.Unlock()
	}
	if isNew {
		for _, f := range ampersandSections(value) {
			s.Add(f, source+" (a section around &, as the runner masks it)")
		}
		for _, d := range structuredForms(value, source) {
			if d.whole {
				s.add(d.value, d.source, true)
			} else {
				s.Add(d.value, d.source) // a leaf may be a JSON document itself
			}
		}
	}
	return added
}

// add registers one value; whole marks a form that is redacted whole, never
// line by line. isNew is set when the value was not registered before.
func (s *Set) add(value, source string, whole bool) (added, isNew bool) {
	if strings.TrimSpace(value) == "" {
		return false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = make(map[string]*entry)
	}
	e, ok := s.entries[value]
	if !ok {
		e = &entry{value: value, whole: whole}
		s.entries[value] = e
		s.pending = append(s.pending, *e)
	} else if e.whole && !whole {
		e.whole = false
		s.pending = append(s.pending, *e) // its lines are patterns now too
	}
	for _, have := range e.sources {
		if have == source {
			return true, !ok
		}
	}
	e.sources = append(e.sources, source)
	if !e.whole {
		s.notePublic(value, []string{source})
	}
	return true, !ok
}

// Len reports how many distinct values are registered, including those too
// short to be redacted by value.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Registration describes one registered value without revealing it.
type Registration struct {
	// Sources are the descriptions passed to Add for this value.
	Sources []string
	// ByValue is false when the value is shorter than MinRedactRunes: Redact
	// ignores it and only position-based redaction protects it.
	ByValue bool
	// ByRunner is false when the value holds no letter or digit:
	// MaskCommands leaves it out, so the runner does not mask it in the log.
	ByRunner bool
}

// Registrations lists what is registered, for diagnostics, sorted by the
// first source. It never includes the values, and leaves out the
// re-serializations of structured secrets (their leaves are listed).
func (s *Set) Registrations() []Registration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Registration, 0, len(s.entries))
	for _, e := range s.entries {
		if e.whole {
			continue
		}
		src := append([]string(nil), e.sources...)
		out = append(out, Registration{Sources: src, ByValue: redactable(e.value), ByRunner: runnerMaskable(e.value)})
	}
	sort.Slice(out, func(i, j int) bool {
		return strings.Join(out[i].Sources, "\x00") < strings.Join(out[j].Sources, "\x00")
	})
	return out
}

// MaskCommands returns the strings to register with the runner's
// ::add-mask::, in a deterministic order that does not depend on the order of
// Add calls: each whole value (surrounding whitespace trimmed), sorted, each
// followed by its meaningful lines when it spans several lines.
//
// The runner matches a registered value against one output line at a time and
// registers an ::add-mask:: value whole, so a multi-line value only masks
// output if its lines are registered too. Lines that are blank, shorter than
// MinRedactRunes or made only of punctuation ("{", "},", "]") are skipped: the
// runner masks every occurrence of what it is given, and "{" would mask every
// brace of the log. For the same reason a whole value with no letter or
// digit ("}", "--", a password of symbols) is never returned: Redact still
// hides it where it is long enough, and Registrations reports it
// (ByRunner false) so that the caller can warn. Other whole values are
// returned whatever their length.
//
// The strings are raw values: the caller escapes them for the workflow
// command (%, CR and LF).
func (s *Set) MaskCommands() []string {
	s.mu.Lock()
	values := make([]string, 0, len(s.entries))
	whole := map[string]bool{}
	for v, e := range s.entries {
		if e.noRunner {
			continue
		}
		values = append(values, strings.TrimSpace(v))
		if e.whole {
			whole[strings.TrimSpace(v)] = true
		}
	}
	s.mu.Unlock()
	sort.Strings(values)

	seen := make(map[string]bool, len(values))
	out := make([]string, 0, len(values))
	emit := func(v string) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, v := range values {
		if !runnerMaskable(v) {
			continue // its lines hold no letter or digit either
		}
		if whole[v] {
			// The runner masks output line by line: a multi-line
			// re-serialization could never match, and its lines are
			// leaves (registered on their own) and field names.
			if !strings.ContainsAny(v, "\r\n") {
				emit(v)
			}
			continue
		}
		emit(v)
		for _, line := range meaningfulLines(v) {
			emit(line)
		}
	}
	return out
}

// Redact replaces with Replacement every registered value (of at least
// MinRedactRunes) and every encoding of it that may reach an output, a
// superset of what the runner masks: base64 (standard and URL-safe, padded or
// not, at any alignment inside a larger blob), JSON string escaping (Go's
// with and without HTML escaping, Newtonsoft's, ASCII-only, nested twice),
// URL escaping (QueryEscape, PathEscape, EscapeDataString,
// encodeURIComponent), XML/HTML entities, and shell and Markdown quoting.
// The encodings function holds the exact list.
// Each meaningful line of a multi-line value is redacted as a value of its
// own. An encoding wrapped across lines (base64 at 64 or 76 columns, as
// PEM, MIME and `base64` write it) is found in the block of lines joined
// back together and replaced one Replacement per line it touches (see
// forEachBlock). Overlapping and adjacent matches merge into one Replacement, so neither a
// value that is a prefix of another nor two overlapping values leave a tail.
//
// An occurrence inside a public literal that holds it is left alone (see
// Public).
//
// Redact is idempotent: Redact(Redact(x)) == Redact(x). Values are matched as
// byte strings; a valid UTF-8 value only matches on character boundaries, so
// valid UTF-8 text stays valid.
//
// A run of the base64 alphabet whose decoded form (base64, base32, gzip,
// zlib, UTF-16LE, nested) holds a secret is replaced too: see blob.go.
func (s *Set) Redact(text string) string { return s.redact(text, true) }

// RedactExceptBlobs is Redact without looking inside encoded blobs: how
// the sinks of review layouts 1 to 3 redacted, so that a review kept from
// before blobs were decoded renders as it was written.
func (s *Set) RedactExceptBlobs(text string) string { return s.redact(text, false) }

func (s *Set) redact(text string, blobs bool) string {
	inside := s.publicInside()
	s.withMatcher(func(m *matcher) {
		if blobs {
			// Before the values' own encodings, which would cut a
			// blob into pieces that no longer decode.
			text = m.replaceBlobs(text, false)
		}
		spans := exemptPublic(text, inside, m.spans(text, false))
		if len(spans) == 0 {
			return
		}
		text = m.replace(text, spans)
		// A decoded occurrence can also form across an inserted Replacement
		// ("%41" + "***" where a value holds "A***"): replacing shortens
		// the text, so this ends.
		for {
			d := exemptPublic(text, inside, m.findDecoded(text, false))
			if len(d) == 0 {
				break
			}
			text = m.replace(text, d)
		}
		if blobs {
			// A Replacement cuts a run in two: each piece is a run
			// of its own now, as a second Redact would read it.
			text = m.replaceBlobs(text, true)
		}
	})
	return text
}

// replace replaces spans of text with Replacement, then the occurrences that
// doing so formed across a Replacement.
func (m *matcher) replace(text string, spans []span) string {
	text = replaceSpans(text, spans)
	// Every occurrence of the original text is gone; a new one can only
	// form across an inserted Replacement, which takes a pattern holding '*'.
	if len(m.starByTail) > 0 {
		text = m.settle(text)
	}
	return text
}

// RedactBytes is Redact for a byte slice. It returns b itself when nothing
// had to be redacted.
func (s *Set) RedactBytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	// Read in place, not copied: sinks redact megabytes (a report JSON, a
	// whole diff's Markdown), and Redact neither changes nor keeps its
	// text; what it returns changed is a new string.
	in := unsafe.String(&b[0], len(b))
	out := s.Redact(in)
	if len(out) == len(in) && unsafe.StringData(out) == &b[0] {
		return b
	}
	return []byte(out)
}

// Contains reports whether text still holds any value or encoding that Redact
// would replace. It is the last-line guard before posting and a test oracle.
func (s *Set) Contains(text string) bool {
	var found bool
	inside := s.publicInside()
	s.withMatcher(func(m *matcher) {
		if len(m.findBlobs(text, true)) > 0 {
			found = true
			return
		}
		if inside == nil {
			found = len(m.spans(text, true)) > 0
			return
		}
		found = len(exemptPublic(text, inside, m.spans(text, false))) > 0
	})
	return found
}

// withMatcher calls f with the matcher of every value added so far, first
// extending it with the values added since the last call. f must not call
// back into s (it runs under the read lock).
func (s *Set) withMatcher(f func(m *matcher)) { s.with(false, f) }

// with is withMatcher, or withLoose when loose is set.
func (s *Set) with(loose bool, f func(m *matcher)) {
	s.learnPending()
	s.mm.RLock()
	defer s.mm.RUnlock()
	m := s.m
	if loose {
		m = s.ml
	}
	if m == nil {
		m = emptyMatcher
	}
	f(m)
}

// emptyMatcher matches nothing: the matcher of a Set with no values.
var emptyMatcher = newMatcher()

// learnPending adds the patterns of the pending entries to the matcher. The
// pending list is taken under the matcher's write lock, so a redaction that
// finds it empty waits for the one learning it.
func (s *Set) learnPending() {
	s.mu.Lock()
	none := len(s.pending) == 0
	s.mu.Unlock()
	if none {
		return
	}
	s.mm.Lock()
	defer s.mm.Unlock()
	s.mu.Lock()
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	if s.m == nil {
		s.m, s.ml = newMatcher(), newMatcher()
		s.m.hex = newMatcher()
	}
	exact, plain, loose := patternsFor(pending)
	s.m.add(exact)
	s.m.hex.add(plain)
	s.ml.add(loose)
}

// patternsFor returns every string Redact looks for, given the registered
// entries (out), the values among them as they are (plain), and every
// canonical form RedactLoose looks for (loose).
func patternsFor(entries []entry) (out, plain, loose []string) {
	for _, e := range entries {
		v := e.value
		if !redactable(v) {
			continue
		}
		forms := []string{v}
		if t := strings.TrimSpace(v); t != v {
			forms = append(forms, t)
		}
		if !e.whole {
			forms = append(forms, meaningfulLines(v)...)
		}
		for _, f := range forms {
			out = append(out, encodings(f)...)
			plain = append(plain, f)
			loose = append(loose, looseForms(f)...)
		}
	}
	return out, plain, loose
}

// redactable reports whether v is long enough to be redacted by value.
func redactable(v string) bool {
	return utf8.RuneCountInString(strings.TrimSpace(v)) >= MinRedactRunes
}

// meaningfulLines returns the trimmed lines of a multi-line value that are
// worth registering on their own: at least MinRedactRunes long and holding at
// least one letter or digit. A single-line value has none.
func meaningfulLines(v string) []string {
	v = strings.TrimSpace(v)
	if !strings.ContainsAny(v, "\r\n") {
		return nil
	}
	var out []string
	for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\r' || r == '\n' }) {
		line = strings.TrimSpace(line)
		if utf8.RuneCountInString(line) < MinRedactRunes {
			continue
		}
		if !runnerMaskable(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// runnerMaskable reports whether v may be given to the runner's
// ::add-mask::: it holds at least one letter or digit. The runner masks every
// occurrence of what it is given, and a value of punctuation and spaces
// alone ("{", "},", "--") would mask that punctuation all over the log.
func runnerMaskable(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// replaceSpans replaces each span of text with Replacement.
func replaceSpans(text string, spans []span) string {
	var b strings.Builder
	removed := 0
	for _, sp := range spans {
		removed += sp.end - sp.start - len(Replacement)
	}
	b.Grow(len(text) - removed)
	prev := 0
	for _, sp := range spans {
		b.WriteString(text[prev:sp.start])
		b.WriteString(Replacement)
		prev = sp.end
	}
	b.WriteString(text[prev:])
	return b.String()
}
