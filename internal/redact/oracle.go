package redact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/assembly"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// A secret whose value also occurs inside a literal the template writes in
// public (a NoEcho parameter "fixture-queue" and a queue named
// "fixture-queue-v1") is no secret: anyone who reads the template can tell
// it, and redacting it there ("***-v1") would point it out by comparison
// with the source. The set leaves such literals alone (secrets.Set.Public);
// the report says so, naming the secret's source and the literal (its text
// when short, and where it is written), never the value apart from it.

// OracleNotes says, once per secret and literal place, that a secret's
// value occurs in a public literal of asm, and that it should be changed.
// Names are redacted with set; the notes are not changes and do not enter
// the digest.
func OracleNotes(set *secrets.Set, asm *assembly.Assembly) []string {
	if asm == nil {
		return nil
	}
	var notes []string
	seen := map[string]bool{}
	for _, o := range set.Oracles() {
		sources := make([]string, 0, len(o.Sources))
		for _, s := range o.Sources {
			sources = append(sources, set.Redact(s))
		}
		literal := "a value the template writes in public"
		if quotable(o.Literal) {
			// Whole or not at all: a cut literal could show part of the
			// value outside it, where nothing says it is public.
			literal = "the literal `" + o.Literal + "` the template writes in public"
		}
		for _, p := range asm.LiteralPlaces(o.Literal) {
			where := fmt.Sprintf("`%s`.`%s` in %s", set.Redact(p.LogicalID), set.Redact(p.Path), set.Redact(p.Stack))
			if p.LogicalID == "" {
				where = fmt.Sprintf("output `%s` of %s", set.Redact(p.Output), set.Redact(p.Stack))
			}
			note := fmt.Sprintf("The value of a secret (%s) occurs in %s, at %s: anyone who reads the template can tell it, so the value is not secret and should be changed. "+
				"cdkd-action does not redact it inside that public value (redacting it there would point it out), and redacts it everywhere else.",
				strings.Join(sources, "; "), literal, where)
			if !seen[note] {
				seen[note] = true
				notes = append(notes, note)
			}
		}
	}
	return notes
}

// maxQuotedLiteral is the longest literal a note quotes, in runes.
const maxQuotedLiteral = 100

// quotable is a literal a note can quote whole in a code span on one line.
func quotable(lit string) bool {
	return utf8.RuneCountInString(lit) <= maxQuotedLiteral && !strings.ContainsAny(lit, "`\r\n|<>")
}
