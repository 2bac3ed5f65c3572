// Package model holds cdkd-action's domain types: what cdkd reported, in a shape
// the reporters and the deploy gate can reason about. Nothing here does I/O.
package model

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Value is one JSON value from cdkd. cdkd drops JavaScript's undefined, so a
// removed property has no newValue key at all, while null is a real value:
// the zero Value means "absent" and Raw "null" means null.
type Value struct {
	Raw json.RawMessage
}

// JSONValue wraps already-encoded JSON; it is how tests and decoders build values.
func JSONValue(raw string) Value { return Value{Raw: json.RawMessage(raw)} }

// StringValue is a present JSON string.
func StringValue(s string) Value {
	b, _ := json.Marshal(s)
	return Value{Raw: b}
}

// Present reports whether the key existed in cdkd's output.
func (v Value) Present() bool { return v.Raw != nil }

// IsZero lets `omitzero` drop absent values when a report is written back out.
func (v Value) IsZero() bool { return v.Raw == nil }

// IsNull reports an explicit JSON null.
func (v Value) IsNull() bool { return bytes.Equal(bytes.TrimSpace(v.Raw), []byte("null")) }

// UnmarshalJSON keeps a private copy of the raw bytes, null included.
func (v *Value) UnmarshalJSON(b []byte) error {
	v.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSONFrom is UnmarshalJSON for encoding/json/v2's decoder
// (cdkd.DecodeDiff), which then skips the copy a legacy method needs.
func (v *Value) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	v.Raw = append(json.RawMessage(nil), raw...)
	return nil
}

// MarshalJSON writes the value back unchanged (absent values are dropped by
// omitzero). encoding/json validates and compacts what it returns, so it
// is not copied here.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Raw == nil {
		return []byte("null"), nil
	}
	return v.Raw, nil
}

// Text renders the value for humans: a JSON string without its quotes, anything
// else as compact JSON, and "" when absent.
func (v Value) Text() string {
	if v.Raw == nil {
		return ""
	}
	if s, ok := plainString(v.Raw); ok {
		return string(s) // most values: nothing to decode
	}
	if t := bytes.TrimSpace(v.Raw); len(t) > 0 && t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v.Raw); err != nil {
		return strconv.Quote(string(v.Raw))
	}
	return buf.String()
}

// Hidden is the placeholder every secret position renders as.
const Hidden = "***"

// IsHidden reports a value that is cdkd's (or our) "***": the JSON string
// "***". Most values are told apart without decoding them.
func (v Value) IsHidden() bool {
	if s, ok := plainString(v.Raw); ok {
		return string(s) == Hidden
	}
	t := bytes.TrimSpace(v.Raw)
	return len(t) > 0 && t[0] == '"' && v.Text() == Hidden
}

// HiddenValue is what a secret position holds after position-based redaction.
func HiddenValue() Value { return StringValue(Hidden) }

// plainString returns the text of a JSON string that holds no escape (most
// values), which needs no decoding; false for anything else.
func plainString(raw json.RawMessage) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, '"') >= 0 {
		return nil, false
	}
	return s, true
}
