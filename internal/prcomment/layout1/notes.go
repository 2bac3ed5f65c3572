package layout1

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Notes are sentences the caller builds from the input (e.g. naming every
// resource whose values are hidden), so their size grows with it. They are
// shortened to a fixed size before any channel renders them, and before
// they go into a comment's hidden header, whose size no budget covers.
const (
	notesMax    = 10   // notes shown; the rest are counted
	noteMax     = 1000 // code points of one note shown whole
	noteListMax = 600  // code points of a shortened note's list
	noteTailMax = 300  // code points of a shortened note's text after its list
	notesWhere  = "the full list is in the report JSON"
)

// ShortNotes returns notes within a fixed size: at most notesMax+1 notes,
// the rest counted in the last one, and each note at most about noteMax code
// points. A long note that names a list ("Values hidden at A, B, …: why")
// keeps the list's first names and says how many more there are; another
// says how many characters were left out. It is idempotent, so a report
// rendered again from shortened notes reads the same.
func ShortNotes(notes []string) []string {
	if len(notes) == 0 {
		return notes
	}
	out := make([]string, 0, min(len(notes), notesMax+1))
	for i, n := range notes {
		// One note more than notesMax shows whole rather than as "1 more":
		// shortened notes then pass unchanged.
		if i == notesMax && len(notes) > notesMax+1 {
			out = append(out, "… and "+strconv.Itoa(len(notes)-notesMax)+" more notes; "+notesWhere+".")
			break
		}
		out = append(out, shortNote(n))
	}
	return out
}

// shortNote shortens one note as ShortNotes says.
func shortNote(n string) string {
	if utf8.RuneCountInString(n) <= noteMax {
		return n
	}
	head, _ := cutRunes(n, noteListMax)
	if cut := strings.LastIndex(head, ", "); cut > 0 {
		rest := n[cut+len(", "):]
		if end := strings.Index(rest, ": "); end >= 0 {
			more := strings.Count(rest[:end], ", ") + 1
			tail, left := cutRunes(rest[end:], noteTailMax)
			if left > 0 {
				tail += " … " + moreChars(left)
			}
			return n[:cut] + " and " + strconv.Itoa(more) + " more (" + notesWhere + ")" + tail
		}
	}
	n, left := cutRunes(n, noteListMax+noteTailMax)
	return n + " … " + moreChars(left) + "; the whole note is in the report JSON."
}
