package reporters

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

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
func writeNotes(w *Writer, notes []string) {
	for _, n := range ShortNotes(notes) {
		w.Block()
		w.Write("> ℹ️ ", Text(n), "\n")
	}
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

// side is one value of a change. A secret position is masked whatever it
// holds: redaction by position, not by recognising the value.
type side struct {
	name     string
	v        model.Value
	absent   string // how a missing value reads
	masked   bool
	redacted bool // cdkd withheld the value
}

func (s side) show(short bool, blockMax int) Shown {
	switch {
	case s.redacted:
		return Shown{Inline: "(redacted by cdkd)"}
	case !s.v.Present():
		return Shown{Inline: s.absent}
	case s.masked:
		return Shown{Inline: Code(model.Masked)}
	}
	return showValue(s.v, short, blockMax)
}

// Tiers of value fidelity; each ladder rung names one.
const (
	valuesFull      = iota // values whole, or cut to the budget's ValueMax
	valuesCollapsed        // values cut to BlockMax at most when the budget is limited
	valuesShort            // values inline, cut to InlineMax; diffs to shortDiffMax
	valuesPaths            // no values
)

// valueLimits says how much of each changed value a report level shows.
type valueLimits struct {
	pathOnly bool // the path alone, no value
	short    bool // values inline, cut to InlineMax; diffs without context
	blockMax int  // the most characters a block or a diff shows; 0: all
	// hint is trusted Markdown saying where a value cut here is whole: for a
	// level with no "report shortened" note to say so. "" says nothing.
	hint string
}

// newValueLimits returns the limits of a fidelity tier within budget b.
// hint is where the full report is.
func newValueLimits(b Budget, hint string, tier int) valueLimits {
	if b.Hint != "" {
		hint = b.Hint
	}
	switch tier {
	case valuesFull:
		return valueLimits{blockMax: b.valueMax(false), hint: hint}
	case valuesCollapsed:
		return valueLimits{blockMax: b.valueMax(true)}
	case valuesShort:
		return valueLimits{short: true, blockMax: shortDiffMax}
	}
	return valueLimits{pathOnly: true}
}

// valueItem is one changed value (a property, attribute or output) as a
// list item: the values inline ("old → new") when they are short; else, in
// a collapsed section, a line diff when both are long strings of several
// lines or JSON objects or arrays, or each in a fenced block.
type valueItem struct {
	indent string // before "- ": nests the item in an outer list
	head   string // Markdown before name, e.g. "attribute "
	// name is the property, attribute or output, shown as code.
	name    string
	markers string // after name, e.g. " · 🔒 secret"
	sides   []side
	what    string // the collapsed section's summary, e.g. "old and new values"
	// diffWhat is the summary of a line diff, e.g. "changes (- old, + new)".
	diffWhat string
}

// write renders the item within l. widest is the length in bytes of the
// longest block or diff it wrote, 0 for none: whether a tighter limit would
// have changed anything.
func (it valueItem) write(w *Writer, l valueLimits) (widest int) {
	if l.pathOnly {
		it.writeHead(w)
		w.Write(it.markers, "\n")
		return 0
	}
	if n, ok := it.writeDiff(w, l); ok {
		return n
	}
	var buf [2]Shown // an item has one or two sides: no allocation
	shown := buf[:0]
	inline := true
	for _, s := range it.sides {
		shown = append(shown, s.show(l.short, l.blockMax))
		inline = inline && shown[len(shown)-1].Inline != ""
	}
	if inline {
		it.writeHead(w)
		w.WriteString(": ")
		for i := range shown {
			if i > 0 {
				w.WriteString(" → ")
			}
			w.WriteString(shown[i].Inline)
		}
		w.Write(it.markers, "\n")
		return 0
	}
	body := it.indent + "  "
	it.writeHead(w)
	w.Write(it.markers, "\n")
	w.Write(body, "<details><summary>", it.what, "</summary>\n\n")
	for i, s := range it.sides {
		if shown[i].Inline != "" {
			w.Write(body, s.name, ": ", shown[i].Inline, "\n\n")
			continue
		}
		w.Write(body, s.name, ":\n")
		w.Fence(shown[i].Block, shown[i].Lang, body)
		widest = max(widest, len(shown[i].Block)+shown[i].More)
		if more := shown[i].More; more > 0 {
			w.Write(body, "… ", moreChars(more))
			if l.hint != "" {
				w.Write(" — the whole value is in ", l.hint, ".")
			}
			w.WriteString("\n")
		}
		w.WriteString("\n")
	}
	w.Write(body, "</details>\n\n")
	return widest
}

// writeHead starts the item's line: the list marker, head and name.
func (it valueItem) writeHead(w *Writer) {
	w.Write(it.indent, "- ", it.head)
	writeNameCode(w, it.name)
}

// writeDiff renders the item as a line diff of its two values, when they
// are worth one, and reports whether it did and the diff's length in bytes,
// or more when it was shortened. Changed lines are what a reviewer must
// see: the diff gives up context, then cuts changed lines, then leaves the
// last ones out, saying how many, to stay within l.
func (it valueItem) writeDiff(w *Writer, l valueLimits) (int, bool) {
	old, cur, ok := it.diffTexts()
	if !ok {
		return 0, false
	}
	d, ok := newLineDiff(old, cur)
	if !ok {
		return 0, false
	}
	text, shortened := d.render(l.blockMax, diffStyles(l.short))
	n := len(text)
	if shortened {
		n = len(old) + len(cur)
	}
	body := it.indent + "  "
	it.writeHead(w)
	w.Write(it.markers, "\n")
	w.Write(body, "<details><summary>", it.diffWhat, "</summary>\n\n")
	w.Fence(text, "diff", body)
	if shortened && l.hint != "" {
		w.Write(body, "Shortened to fit; the whole change is in ", l.hint, ".\n")
	}
	w.Write("\n", body, "</details>\n\n")
	return n, true
}

// diffTexts returns the texts of an old and a new value worth a line diff:
// both shown (neither absent, masked nor withheld) and of one kind, and at
// least one too long for a line: a JSON object or array longer than
// InlineMax, or a string of several lines. A long string of one line diffs
// to nothing more readable than the two values.
func (it valueItem) diffTexts() (old, cur string, ok bool) {
	if len(it.sides) != 2 || it.diffWhat == "" {
		return "", "", false
	}
	var raw [2][]byte
	for i, s := range it.sides {
		if s.masked || s.redacted || !s.v.Present() {
			return "", "", false
		}
		raw[i] = bytes.TrimSpace(s.v.Raw)
		if len(raw[i]) == 0 {
			return "", "", false
		}
	}
	container := func(c byte) bool { return c == '{' || c == '[' }
	var texts [2]string
	switch a, b := raw[0][0], raw[1][0]; {
	case container(a) && container(b):
		compact := [2]string{compactJSON(raw[0]), compactJSON(raw[1])}
		if utf8.RuneCountInString(visible(compact[0], false)) <= InlineMax &&
			utf8.RuneCountInString(visible(compact[1], false)) <= InlineMax {
			return "", "", false
		}
		for i := range texts {
			texts[i] = visible(indentCompact(compact[i]), true)
		}
	case a == '"' && b == '"':
		// Most strings are neither documents nor lines: tell from their
		// JSON, before decoding them.
		docs := mayHoldJSONDoc(raw[0]) && mayHoldJSONDoc(raw[1])
		lines := hasNewlineEscape(raw[0]) || hasNewlineEscape(raw[1])
		if !docs && !lines {
			return "", "", false
		}
		var strs [2]string
		for i := range strs {
			if strs[i], ok = stringText(raw[i]); !ok {
				return "", "", false
			}
		}
		// A JSON document held in a one-line string (a Step Functions
		// definition, a policy string): diff its indented form, or a change
		// past the cut would be invisible.
		if docs {
			if doc, ok := jsonDocs(strs); ok && (len(strs[0]) > InlineMax || len(strs[1]) > InlineMax) {
				for i := range texts {
					texts[i] = visible(indentCompact(compactJSON(doc[i])), true)
				}
				break
			}
		}
		if !lines {
			return "", "", false
		}
		for i := range texts {
			texts[i] = visible(strs[i], true)
		}
	default:
		return "", "", false
	}
	return texts[0], texts[1], true
}

// mayHoldJSONDoc reports whether a JSON string could hold a JSON object or
// array: its text has a "{" or "[", written as is or as a \u escape.
func mayHoldJSONDoc(raw []byte) bool {
	return bytes.ContainsAny(raw, "{[") || bytes.Contains(raw, []byte(`\u`))
}

// jsonDocs reports whether both strings are JSON objects or arrays.
func jsonDocs(strs [2]string) ([2][]byte, bool) {
	var doc [2][]byte
	for i, s := range strs {
		// Most strings are not documents: tell by the first character,
		// before copying them to bytes.
		s = strings.TrimSpace(s)
		if s == "" || (s[0] != '{' && s[0] != '[') {
			return doc, false
		}
		if doc[i] = []byte(s); !json.Valid(doc[i]) {
			return doc, false
		}
	}
	return doc, true
}

// secretMarker tags a value at a secret position: " · 🔒 <kind>", or ""
// for none.
func secretMarker(k model.SecretKind) string {
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
	writeNameCode(w, logicalID)
	w.WriteString(" (")
	writeNameCode(w, typ)
	w.WriteString(") in ")
	writeNameCode(w, stack)
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
	var w Writer
	writeCodeList(&w, names, limit)
	return w.String()
}

// writeCodeList writes codeList(names, limit) to w.
func writeCodeList(w *Writer, names []string, limit int) {
	for i, n := range names {
		if i == limit {
			w.Write(" and ", strconv.Itoa(len(names)-limit), " more")
			break
		}
		if i > 0 {
			w.WriteString(", ")
		}
		writeNameCode(w, n)
	}
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

// writeNameCode writes nameCode(s) to w.
func writeNameCode(w *Writer, s string) { writeCode(w, shortName(s)) }

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
