// Package redacted is text the secret redactor produced, as a type of its
// own. A sink whose parameters are Text (every publish target) cannot be
// handed a plain string, so it cannot forget to redact: the only way to
// make a Text is to run a Redactor over a string. It imports nothing of
// the project, so every layer can use it.
package redacted

import "strings"

// Text is text a Redactor produced. Its zero value is the empty text.
type Text struct{ s string }

// String is the redacted text, to hand to the API or file that writes it.
func (t Text) String() string { return t.s }

// Redactor is what makes Text: the run's secret set (secrets.Set), which
// replaces every secret it knows, in any encoding, with "***".
type Redactor interface {
	Redact(string) string
}

// Redact is the only way to make a Text from a string: s as r redacts it.
func Redact(r Redactor, s string) Text { return Text{s: r.Redact(s)} }

// Lines joins redacted texts with newlines: text made of redacted parts
// and line breaks only.
func Lines(parts ...Text) Text {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.s)
	}
	return Text{s: b.String()}
}
