package reporters

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// A changed value as a list item (a property, an attribute or an output):
// its sides, the fidelity tiers a budget ladder steps down through, and
// the line diff of two long values.

// side is one value of a change. A secret position is hidden whatever it
// holds: redaction by position, not by recognising the value.
type side struct {
	name     string
	v        model.Value
	absent   string // how a missing value reads
	hidden   bool
	redacted bool // cdkd withheld the value
}

func (s side) show(short bool, blockMax int) Shown {
	switch {
	case s.redacted:
		return Shown{Inline: "(redacted by cdkd)"}
	case !s.v.Present():
		return Shown{Inline: s.absent}
	case s.hidden:
		return Shown{Inline: Code(model.Hidden)}
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
	name   string
	labels string // after name, e.g. " · 🔒 secret"
	sides  []side
	what   string // the collapsed section's summary, e.g. "old and new values"
	// diffWhat is the summary of a line diff, e.g. "changes (- old, + new)".
	diffWhat string
}

// write renders the item within l. widest is the length in bytes of the
// longest block or diff it wrote, 0 for none: whether a tighter limit would
// have changed anything.
func (it valueItem) write(w *Writer, l valueLimits) (widest int) {
	if l.pathOnly {
		it.writeHead(w)
		w.Write(it.labels, "\n")
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
		w.Write(it.labels, "\n")
		return 0
	}
	body := it.indent + "  "
	it.writeHead(w)
	w.Write(it.labels, "\n")
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
	w.WriteString(nameCode(it.name))
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
	w.Write(it.labels, "\n")
	w.Write(body, "<details><summary>", it.diffWhat, "</summary>\n\n")
	w.Fence(text, "diff", body)
	if shortened && l.hint != "" {
		w.Write(body, "Shortened to fit; the whole change is in ", l.hint, ".\n")
	}
	w.Write("\n", body, "</details>\n\n")
	return n, true
}

// diffTexts returns the texts of an old and a new value worth a line diff:
// both shown (neither absent, hidden nor withheld) and of one kind, and at
// least one too long for a line: a JSON object or array longer than
// InlineMax, or a string of several lines. A long string of one line diffs
// to nothing more readable than the two values.
func (it valueItem) diffTexts() (old, cur string, ok bool) {
	if len(it.sides) != 2 || it.diffWhat == "" {
		return "", "", false
	}
	var raw [2][]byte
	for i, s := range it.sides {
		if s.hidden || s.redacted || !s.v.Present() {
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
