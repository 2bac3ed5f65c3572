package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// DecodeJSON decodes one JSON value into the shapes encoding/json gives an
// `any` with UseNumber: nil, bool, json.Number (exactly as written),
// string, []any and map[string]any (a repeated name's last value wins,
// invalid UTF-8 becomes U+FFFD). It reads with encoding/json/v2's
// tokenizer (github.com/go-json-experiment/json/jsontext), several times
// faster on the small values a diff holds; canonical values, the security
// table and the cloud assembly's templates read values through it (the
// digest reads the tokens itself: canonicalJSON).
func DecodeJSON(b []byte) (any, error) {
	d := decoderFor(b)
	defer d.put()
	return d.decodeAny()
}

// objectRest decodes an object's members and its closing brace, its
// opening one read. member, when not nil, is told where each member's
// value is in the input: [start, end).
func (d *pooledDecoder) objectRest(member func(name string, start, end int)) (map[string]any, error) {
	dec := &d.dec
	start := len(d.stack)
	defer d.pop(start)
	for dec.PeekKind() != '}' {
		name, err := d.readText()
		if err != nil {
			return nil, err
		}
		from := d.valueStart()
		v, err := d.decodeAny()
		if err != nil {
			return nil, err
		}
		if member != nil {
			member(name, from, int(dec.InputOffset()))
		}
		d.stack = append(d.stack, decoded{name, v})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	return d.object(start), nil
}

// object is the members gathered on the stack from start, made once at
// their number; a repeated name's last value wins.
func (d *pooledDecoder) object(start int) map[string]any {
	obj := make(map[string]any, len(d.stack)-start)
	for _, m := range d.stack[start:] {
		obj[m.name] = m.value
	}
	return obj
}

// valueStart is where the value after the name just read begins: past
// the colon and any space around it.
func (d *pooledDecoder) valueStart() int {
	at := int(d.dec.InputOffset())
	for at < len(d.in) && (d.in[at] == ':' || d.in[at] == ' ' || d.in[at] == '\t' || d.in[at] == '\n' || d.in[at] == '\r') {
		at++
	}
	return at
}

// DecodeJSONSpans is DecodeJSON of b, and, when b is an object, where in
// b each member of its member section (an object too) is written: the
// [start, end) of each name's value, the last one for a repeated name, as
// DecodeJSON keeps the last. A template's resources can then be decoded
// again one at a time from its bytes, without reading the rest.
func DecodeJSONSpans(b []byte, section string) (any, map[string][2]int, error) {
	d := decoderFor(b)
	defer d.put()
	dec := &d.dec
	if dec.PeekKind() != '{' {
		v, err := d.decodeAny()
		return v, nil, err
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, err
	}
	start := len(d.stack)
	defer d.pop(start)
	var spans map[string][2]int
	for dec.PeekKind() != '}' {
		name, err := d.readText()
		if err != nil {
			return nil, nil, err
		}
		var v any
		switch {
		case name != section:
			v, err = d.decodeAny()
		case dec.PeekKind() == '{':
			if _, err = dec.ReadToken(); err == nil {
				d.spans = d.spans[:0]
				v, err = d.objectRest(func(member string, from, to int) { d.spans = append(d.spans, span{member, from, to}) })
				// Made once at its size; a repeated section: the last one's.
				spans = make(map[string][2]int, len(d.spans))
				for _, sp := range d.spans {
					spans[sp.name] = [2]int{sp.from, sp.to}
				}
			}
		default:
			spans = nil
			v, err = d.decodeAny()
		}
		if err != nil {
			return nil, nil, err
		}
		d.stack = append(d.stack, decoded{name, v})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, err
	}
	return d.object(start), spans, nil
}

// pooledDecoder is a decoder with its reader, both reused, and the short
// strings it decoded lately: a policy's or a template's names and many of
// its values ("Effect", "Allow", "Fn::GetAtt") repeat from value to value,
// and each would be a string of its own.
type pooledDecoder struct {
	dec     jsontext.Decoder
	r       bytes.Reader
	in      []byte // what r reads
	strings map[string]string
	// boxed are short string and number values as `any`: boxing one
	// allocates, and a template's values repeat ("Allow", "2012-10-17",
	// 30); an interface value cannot be changed, so one serves them all.
	boxed map[boxKey]any
	text  []byte
	// stack holds the members and items of the objects and lists being
	// decoded, so each is made once at its size instead of grown.
	stack []decoded
	// spans are DecodeJSONSpans' section members, gathered the same way.
	spans []span
}

type span struct {
	name     string
	from, to int
}

type decoded struct {
	name  string
	value any
}

type boxKey struct {
	number bool
	text   string
}

// Bounds of pooledDecoder.strings.
const (
	internedLen  = 64
	internedMost = 1024
)

// readText is a string or number token's text, as Token.String gives it: a
// string unquoted, invalid UTF-8 replaced.
func (d *pooledDecoder) readText() (string, error) {
	v, err := d.dec.ReadValue()
	if err != nil {
		return "", err
	}
	b := []byte(v)
	if v.Kind() == '"' {
		d.text, _ = jsontext.AppendUnquote(d.text[:0], v)
		b = d.text
	}
	if len(b) > internedLen {
		return string(b), nil
	}
	if s, ok := d.strings[string(b)]; ok {
		return s, nil
	}
	if d.strings == nil || len(d.strings) >= internedMost {
		d.strings = make(map[string]string, internedMost)
	}
	s := string(b)
	d.strings[s] = s
	return s, nil
}

var decoders = sync.Pool{New: func() any { return new(pooledDecoder) }}

// put returns d to the pool, holding nothing of its input.
func (d *pooledDecoder) put() {
	d.in = nil
	clear(d.spans)
	d.spans = d.spans[:0]
	d.r.Reset(nil)
	decoders.Put(d)
}

// decoderFor is a pooled decoder ready for b; put returns it.
func decoderFor(b []byte) *pooledDecoder {
	d := decoders.Get().(*pooledDecoder)
	d.reset(b)
	return d
}

// reset readies the decoder for b, with DecodeJSON's choices.
func (d *pooledDecoder) reset(b []byte) {
	d.in = b
	d.r.Reset(b)
	d.dec.Reset(&d.r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// pop drops the stack's members from start, keeping none of the values
// alive in the pooled decoder.
func (d *pooledDecoder) pop(start int) {
	clear(d.stack[start:])
	d.stack = d.stack[:start]
}

func (d *pooledDecoder) decodeAny() (any, error) {
	dec := &d.dec
	switch k := dec.PeekKind(); k {
	case '"', '0':
		s, err := d.readText()
		if err != nil || len(s) > internedLen {
			if k == '0' {
				return json.Number(s), err
			}
			return s, err
		}
		key := boxKey{number: k == '0', text: s}
		if v, ok := d.boxed[key]; ok {
			return v, nil
		}
		if d.boxed == nil || len(d.boxed) >= internedMost {
			d.boxed = make(map[boxKey]any, internedMost)
		}
		var v any = s
		if key.number {
			v = json.Number(s)
		}
		d.boxed[key] = v
		return v, nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 'f':
		return false, nil
	case 't':
		return true, nil
	case '[':
		start := len(d.stack)
		defer d.pop(start)
		for dec.PeekKind() != ']' {
			v, err := d.decodeAny()
			if err != nil {
				return nil, err
			}
			d.stack = append(d.stack, decoded{value: v})
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		list := make([]any, len(d.stack)-start)
		for i, m := range d.stack[start:] {
			list[i] = m.value
		}
		return list, nil
	case '{':
		return d.objectRest(nil)
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
