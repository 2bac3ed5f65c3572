package model

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// DecodeJSON decodes one JSON value into the shapes encoding/json gives an
// `any` with UseNumber: nil, bool, json.Number (exactly as written),
// string, []any and map[string]any (a repeated name's last value wins,
// invalid UTF-8 becomes U+FFFD). It reads with encoding/json/v2's
// tokenizer (github.com/go-json-experiment/json/jsontext), several times
// faster than encoding/json's reflection on the small values a diff holds
// and on a cloud assembly's templates, which are decoded whole.
func DecodeJSON(b []byte) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return decodeAny(dec)
}

func decodeAny(dec *jsontext.Decoder) (any, error) {
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
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case '[':
		list := []any{}
		for dec.PeekKind() != ']' {
			v, err := decodeAny(dec)
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
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read voids tok
			v, err := decodeAny(dec)
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
