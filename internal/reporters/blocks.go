package reporters

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// The pieces every report (diff, drift, deploy) is built from, written once
// so that the three read alike.

// writeTitle writes a report's heading: "### cdkd diff (prod)".
func writeTitle(w *Writer, command, label string) {
	w.Write("### cdkd ", command)
	if label != "" {
		label, _ = cutRunes(label, labelMax)
		w.Write(" (", Text(label), ")")
	}
	w.WriteString("\n")
}

// footer holds the facts a report ends with, on one <sub> line; empty ones
// are left out.
type footer struct {
	shaLabel string // what sha is: "head" or "commit"
	sha      string
	extra    string // trusted Markdown after the commit, e.g. the pull request
	runURL   string // only http(s) URLs are linked
	cdkd     string
	source   string // where cdkd came from: "bundled", "cdkd-path", ...
	digest   string // shown shortened
}

func (f footer) write(w *Writer) {
	var parts []string
	if f.sha != "" {
		parts = append(parts, f.shaLabel+" "+Code(ShortSHA(f.sha)))
	}
	if f.extra != "" {
		parts = append(parts, f.extra)
	}
	if u := safeURL(f.runURL); u != "" {
		parts = append(parts, "[view run]("+u+")")
	}
	if v := f.cdkd; v != "" {
		v, _ = cutRunes(v, 40)
		if s, _ := cutRunes(f.source, 20); s != "" {
			v += " (" + s + ")"
		}
		parts = append(parts, "cdkd "+Text(v))
	}
	if dg := f.digest; dg != "" {
		parts = append(parts, "digest "+Code(shortDigest(dg)))
	}
	if len(parts) > 0 {
		w.Block()
		w.Write("<sub>", strings.Join(parts, " · "), "</sub>\n")
	}
}

// writeNotes writes each note as a quoted ℹ️ line of its own, shortened
// (ShortNotes) on every channel: they come before the ladder's rungs.
//
// spans renders a note's `code spans` as code (NoteText); without it, as
// layouts 1 and 2 of the diff report wrote them, the backticks show as
// literal characters around the text.
func writeNotes(w *Writer, notes []string, spans bool) {
	text := Text
	if spans {
		text = NoteText
	}
	for _, n := range ShortNotes(notes) {
		w.Block()
		w.Write("> ℹ️ ", text(n), "\n")
	}
}

// NoteText is Text for a sentence that writes code as `code spans`, as the
// notes do (`{{resolve:…}}`): each pair of backticks becomes a <code>
// element, everything else Text. An unpaired backtick stays a literal
// character.
func NoteText(s string) string {
	parts := strings.Split(s, "`")
	if len(parts) < 3 {
		return Text(s)
	}
	var b strings.Builder
	for i, part := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1 && part != "":
			b.WriteString(CodeHTML(part))
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("&#96;&#96;") // an empty pair is two backticks
		default:
			if i%2 == 1 { // the unpaired last backtick
				b.WriteString("&#96;")
			}
			// Text drops surrounding spaces: keep those beside a code span.
			if i > 0 && strings.HasPrefix(part, " ") && (strings.Trim(part, " ") != "" || i < len(parts)-1) {
				b.WriteString(" ")
			}
			b.WriteString(Text(part))
			if i < len(parts)-1 && strings.HasSuffix(part, " ") && strings.Trim(part, " ") != "" {
				b.WriteString(" ")
			}
		}
	}
	return b.String()
}

// writeErrorTail writes the tail of cdkd's stderr for a failure report at
// one of the errorLevels: all of it first, then the last 30 lines cut
// shorter, then none.
func writeErrorTail(w *Writer, tail []string, level int) {
	lines, width := tail, 1000
	switch level {
	case levelShortTail:
		lines, width = lines[max(0, len(lines)-30):], 300
	case levelNoTail:
		lines = nil
	}
	writeStderr(w, lines, width)
}

// writeStderr writes cdkd's last stderr lines, each cut to width
// characters, in a collapsed fenced block; nothing when there are none.
func writeStderr(w *Writer, lines []string, width int) {
	if len(lines) == 0 {
		return
	}
	var b strings.Builder
	for _, l := range lines {
		l, more := cutRunes(l, width)
		b.WriteString(l)
		if more > 0 {
			b.WriteString(" … " + moreChars(more))
		}
		b.WriteString("\n")
	}
	what := "last line"
	if len(lines) > 1 {
		what = "last " + strconv.Itoa(len(lines)) + " lines"
	}
	w.Block()
	w.Write(Details("cdkd's stderr ("+what+")", false, Fence(b.String(), "text")), "\n")
}

// secretLabel tags a value at a secret position: " · 🔒 <kind>", or ""
// for none.
func secretLabel(k model.SecretKind) string {
	if k == model.SecretNone {
		return ""
	}
	return " · 🔒 " + Text(string(k))
}

// stackSummary is the start of a stack section's <summary>: the stack in
// bold and its region.
func stackSummary(stack, region string) string {
	s := "<b>" + Text(shortName(stack)) + "</b>"
	if region != "" {
		s += " · " + Text(shortName(region))
	}
	return s
}

// writeDestructive names a delete or replacement: "♻️ **replace** `Db`
// (`AWS::RDS::DBInstance`) in `Stack`".
func writeDestructive(w *Writer, a model.Action, logicalID, typ, stack string) {
	w.Write(actionLabel(a), " ")
	w.WriteString(nameCode(logicalID))
	w.WriteString(" (")
	w.WriteString(nameCode(typ))
	w.WriteString(") in ")
	w.WriteString(nameCode(stack))
}

// actionLabel pairs an emoji with a word: the emoji alone says little to a
// screen reader or a quick reader.
func actionLabel(a model.Action) string {
	switch a {
	case model.ActionCreate:
		return "➕ **create**"
	case model.ActionUpdate:
		return "🔄 **update**"
	case model.ActionReplace:
		return "♻️ **replace**"
	case model.ActionDelete:
		return "➖ **delete**"
	}
	// A change type a later cdkd added: shown as cdkd named it.
	return "❔ **" + Text(string(a)) + "** (unknown change type)"
}

// moreItems is the list item closing a list cut short.
func moreItems(n int) string { return "- … and " + strconv.Itoa(n) + " more\n" }

// appendCount appends "n what" ("2 to create") to parts when n is not zero,
// or always.
func appendCount(parts []string, n int, what string, always bool) []string {
	if n > 0 || always {
		parts = append(parts, strconv.Itoa(n)+" "+what)
	}
	return parts
}

// countOf is "1 resource" or "3 resources".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// codeList renders names as code spans, at most limit of them (-1: all).
func codeList(names []string, limit int) string {
	var b strings.Builder
	for i, n := range names {
		if i == limit {
			b.WriteString(" and " + strconv.Itoa(len(names)-limit) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(nameCode(n))
	}
	return b.String()
}

// nameMax caps a name's length: CloudFormation allows 255 characters for a
// logical id, and no name deserves more of a report than that.
const nameMax = 300

// shortName cuts an absurdly long name, saying so.
func shortName(s string) string {
	if len(s) <= nameMax {
		return s
	}
	head, more := cutRunes(s, nameMax)
	if more == 0 {
		return s
	}
	return head + "… " + moreChars(more)
}

// nameCode shows a name as code.
func nameCode(s string) string { return Code(shortName(s)) }

// region is " (eu-west-1)" after a stack's name, or "".
func region(r string) string {
	if r == "" {
		return ""
	}
	return " (" + Text(shortName(r)) + ")"
}

// ShortSHA keeps a commit's first 7 characters, as GitHub shows it.
func ShortSHA(sha string) string {
	sha, _ = cutRunes(sha, 7)
	return sha
}

// shortDigest keeps the version and 12 hex digits: enough to compare by eye.
func shortDigest(d string) string {
	version, hex, ok := strings.Cut(d, ":")
	if !ok {
		d, _ = cutRunes(d, 16)
		return d
	}
	hex, _ = cutRunes(hex, 12)
	version, _ = cutRunes(version, 8)
	return version + ":" + hex
}

// safeURL returns an http(s) URL that cannot break out of a Markdown link,
// or "" when raw is not one.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	return strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E", " ", "%20",
		"\\", "%5C", "`", "%60", "\"", "%22").Replace(u.String())
}
