package secrets

import "strings"

// The helpers here are the only way text may be reshaped on its way to a
// sink. A transformation can break a match (folding turns "a\tb" into
// "a b", cutting keeps the first half of a value), so each one redacts the
// text in its original form first, then transforms it, then redacts the
// result again (a transformation can also join two pieces into a match).

// Fold collapses every run of whitespace, line breaks and every Unicode
// space included (NBSP, thin space, ideographic space), into one ASCII
// space and trims the ends. It does not redact: use OneLine on text that
// may hold a secret.
func Fold(text string) string {
	return strings.Join(strings.Fields(text), " ")
}

// OneLine returns text redacted, folded onto one line (see Fold) and
// redacted again: for a log command, a title, a table cell or a
// description.
func (s *Set) OneLine(text string) string {
	return s.Redact(Fold(s.Redact(text)))
}

// OneLineLoose is OneLine for cdkd's error text: redacted with RedactLoose
// before folding (which would join a wrapped value's pieces with a space)
// and after.
func (s *Set) OneLineLoose(text string) string {
	return s.RedactLoose(Fold(s.RedactLoose(text)))
}
