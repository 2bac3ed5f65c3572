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
	d := decoders.Get().(*pooledDecoder)
	defer decoders.Put(d)
	d.r.Reset(b)
	d.dec.Reset(&d.r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return d.decodeAny()
}

// pooledDecoder is a decoder with its reader, both reused, and the short
// strings it decoded lately: a policy's or a template's names and many of
// its values ("Effect", "Allow", "Fn::GetAtt") repeat from value to value,
// and each would be a string of its own.
type pooledDecoder struct {
	dec     jsontext.Decoder
	r       bytes.Reader
	strings map[string]string
	text    []byte
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

func (d *pooledDecoder) decodeAny() (any, error) {
	dec := &d.dec
	switch dec.PeekKind() {
	case '"':
		return d.readText()
	case '0':
		s, err := d.readText()
		return json.Number(s), err
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
		list := []any{}
		for dec.PeekKind() != ']' {
			v, err := d.decodeAny()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return list, nil
	case '{':
		obj := map[string]any{}
		for dec.PeekKind() != '}' {
			name, err := d.readText()
			if err != nil {
				return nil, err
			}
			v, err := d.decodeAny()
			if err != nil {
				return nil, err
			}
			obj[name] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return obj, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}
