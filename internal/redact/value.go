package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
	"github.com/cdkd-action/cdkd-action/internal/secrets"
)

// hiddenKind is the secret kind of a change one side of which is "***":
// a reference when the change already reads one or a side spells one
// (cdkd hides the live side of a rotated reference: sample 78), else
// NoEcho. A reference position is not labelled NoEcho.
func hiddenKind(k model.SecretKind, values ...model.Value) model.SecretKind {
	if k == model.SecretReference {
		return k
	}
	for _, v := range values {
		if v.Present() && !v.IsNull() && strings.HasPrefix(strings.TrimSpace(v.Text()), "{{resolve:") {
			return model.SecretReference
		}
	}
	return model.SecretNoEcho
}

// hidePresent replaces a value with "***" but keeps absence and null
// visible: a reviewer still learns that a secret property was added or
// removed, and neither tells anything about the value.
func hidePresent(v model.Value) model.Value {
	if !v.Present() || v.IsNull() {
		return v
	}
	return model.HiddenValue()
}

// hideable is a value that says something: absence and null stay visible.
func hideable(v model.Value) bool { return v.Present() && !v.IsNull() }

// redactValue redacts a JSON value twice over. First every string and key
// is redacted decoded: a secret written in another encoding inside a JSON
// string (XML entities, say) has its backslashes and quotes escaped in the
// raw text, where no single encoding matches it. Then the raw text is
// redacted, for a secret that spans JSON syntax; if that broke the JSON, the
// whole value is hidden: when in doubt, redact.
func redactValue(v model.Value, set *secrets.Set) model.Value {
	if !v.Present() {
		return v
	}
	raw := []byte(v.Raw)
	// Fast path: without a backslash every decoded string is a substring of
	// raw, so when raw holds no secret, no decoded string does either.
	if bytes.IndexByte(raw, '\\') < 0 && !set.Contains(string(raw)) {
		return v
	}
	if decoded, ok := redactDecoded(raw, set); ok {
		raw = decoded
	}
	out := set.RedactBytes(raw)
	if string(out) == string(v.Raw) {
		return v
	}
	if !json.Valid(out) {
		return model.HiddenValue()
	}
	return model.Value{Raw: out}
}

// redactDecoded redacts the decoded strings and keys of a JSON value and
// encodes it again; ok is false when nothing changed or raw is not JSON.
// Re-encoding sorts object keys, which only a changed value shows.
func redactDecoded(raw []byte, set *secrets.Set) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return nil, false
	}
	changed := false
	x = redactTree(x, set, &changed)
	if !changed {
		return nil, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(x) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

func redactTree(x any, set *secrets.Set, changed *bool) any {
	switch n := x.(type) {
	case string:
		r := set.Redact(n)
		*changed = *changed || r != n
		return r
	case []any:
		for i := range n {
			n[i] = redactTree(n[i], set, changed)
		}
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, v := range n {
			rk := set.Redact(k)
			*changed = *changed || rk != k
			if _, dup := out[rk]; dup {
				// Two keys redacted alike: keeping one would misreport.
				return model.Hidden
			}
			out[rk] = redactTree(v, set, changed)
		}
		return out
	}
	return x
}

// learn adds a value hidden because of where it sits to the redactor, so
// the same value elsewhere (a revert's failure line, cdkd's log, an event)
// is hidden too. A "***" or an unresolved reference is not a value.
func learn(set *secrets.Set, v model.Value, kind model.SecretKind, where string) {
	if !learns(kind) || !hideable(v) {
		return
	}
	text := v.Text()
	if text == model.Hidden || strings.Contains(text, "{{resolve:") || covered(set, text) {
		return
	}
	set.Add(text, fmt.Sprintf("value at the %s position %s", kind, where))
}

// learns reports a kind of position whose values are learned as secrets
// (callers check it before naming the place, which costs a string).
func learns(kind model.SecretKind) bool {
	return kind != model.SecretNone && kind != model.SecretUnknown
}

// covered reports a value that holds a secret the set knows already: that
// secret is what makes its position secret, and the rest of a longer value
// is the template's own text. A value that holds none may be the secret
// itself.
func covered(set *secrets.Set, text string) bool {
	return set.Redact(text) != text
}

// redactedWhole reports a value that is one secret and nothing else: the
// other side of its change is the live secret.
func redactedWhole(v model.Value, set *secrets.Set) bool {
	if !hideable(v) || v.IsHidden() {
		return false
	}
	return set.Redact(v.Text()) == model.Hidden
}

// JSON redacts a JSON value by value (every known secret, in every
// encoding): for values read outside a diff's positions, such as a deleted
// resource's state or a created one's template. A value the redaction
// would leave invalid is hidden whole.
func JSON(v model.Value, set *secrets.Set) model.Value { return redactValue(v, set) }
