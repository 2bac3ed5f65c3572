package secrets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// minSecretDigits is the fewest digits a number inside a structured secret
// needs to be registered: shorter numbers (a port, a count, a year) are
// everywhere in a log.
const minSecretDigits = 6

// structuralFields are the fields of the secret formats AWS documents for
// database credentials (Secrets Manager rotation templates) that say where a
// database is, not how to log in to it. Their values ("mysql", "5432", a
// host name) are ordinary words of any log, so they are not registered on
// their own.
var structuralFields = map[string]bool{
	"engine": true, "host": true, "port": true, "dbname": true,
	"dbInstanceIdentifier": true, "dbClusterIdentifier": true,
}

// derived is a form of a structured secret registered alongside it.
type derived struct {
	value, source string
	// whole is set for a re-serialization of the whole document: it is
	// redacted whole, never line by line (its lines are made of the leaves,
	// each registered on its own, and of field names).
	whole bool
}

// structuredForms returns what a secret whose value is a JSON object or
// array is also known by: its compact and pretty re-serializations (the
// original key order and Go's sorted one) and every string leaf of at
// least MinRedactRunes runes and every number of at least minSecretDigits
// digits, at any depth, but not booleans, null, or the values of
// structuralFields. A value that is not such a document has none.
func structuredForms(v, source string) []derived {
	t := strings.TrimSpace(v)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return nil
	}
	var out []derived
	whole := func(form, how string) {
		if form != t {
			out = append(out, derived{value: form, source: how + " of " + source, whole: true})
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(t)) == nil {
		compact := buf.String()
		whole(compact, "compact JSON")
		whole(pythonSpaced(compact), "JSON with spaces")
		for _, indent := range []string{"  ", "    ", "\t"} {
			buf.Reset()
			if json.Indent(&buf, []byte(compact), "", indent) == nil {
				whole(buf.String(), "indented JSON")
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return out
	}
	for _, escapeHTML := range []bool{false, true} {
		for _, indent := range []string{"", "  "} {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(escapeHTML)
			enc.SetIndent("", indent)
			if enc.Encode(doc) == nil {
				whole(strings.TrimSuffix(buf.String(), "\n"), "re-encoded JSON")
			}
		}
	}
	walkLeaves(doc, "", func(path, leaf string) {
		out = append(out, derived{value: leaf, source: fmt.Sprintf("field %s of %s", path, source)})
	})
	return dedupeDerived(out)
}

// walkLeaves calls leaf for every string and number of doc worth
// registering (see structuredForms), with its path ("password", "[2].key").
func walkLeaves(doc any, path string, leaf func(path, value string)) {
	switch x := doc.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if structuralFields[k] {
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkLeaves(x[k], p, leaf)
		}
	case []any:
		for i, e := range x {
			walkLeaves(e, fmt.Sprintf("%s[%d]", path, i), leaf)
		}
	case string:
		if redactable(x) {
			leaf(path, x)
		}
	case json.Number:
		if digits(x.String()) >= minSecretDigits {
			leaf(path, x.String())
		}
	}
	// bool and nil: never secret on their own.
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

// pythonSpaced respaces compact JSON as Python's json.dumps writes it by
// default: ", " between items and ": " after keys.
func pythonSpaced(compact string) string {
	var b strings.Builder
	inString, escaped := false, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		b.WriteByte(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func dedupeDerived(in []derived) []derived {
	seen := map[string]bool{}
	out := in[:0]
	for _, d := range in {
		if !seen[d.value] {
			seen[d.value] = true
			out = append(out, d)
		}
	}
	return out
}
