package cdkd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// One reader for all of cdkd's JSON (diff, drift, state, events): the
// encoding/json/v2 proposal's implementation, github.com/go-json-experiment/json,
// with these choices, each set explicitly so that none rests on a default:
//
//   - Unknown members are tolerated: a newer cdkd may add fields. (The
//     drift report keeps its unknown groups through an embedded fallback.)
//   - Names match as cdkd spells them (camelCase), case-sensitively.
//     encoding/json also matched "Stack" or "STACK" to "stack"; cdkd never
//     prints those, and a second spelling of a name is how a crafted
//     document would say two things at once.
//   - A name repeated in one object is an error, not "the last one wins"
//     as in encoding/json: which value counts would be ambiguous.
//   - Invalid UTF-8, and an escaped lone surrogate ("\ud800"), are errors,
//     where encoding/json replaced them with U+FFFD: cdkd (Node.js) writes
//     UTF-8, and a value changed on the way in could hide a secret from the
//     redactor that matches it by value.
//
// Each rejection is one sentence naming the input and the place
// (jsonProblem). Everything else reads as encoding/json read it
// (FuzzDecodeDiff compares the two on every input both accept).
var readOptions = jsonv2.JoinOptions(
	jsonv2.RejectUnknownMembers(false),
	jsonv2.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// unmarshal reads one JSON document into v with readOptions.
func unmarshal(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v, readOptions)
}

// firstValue returns the JSON value stdout starts with and where it ends,
// read with readOptions: text cdkd prints after its document is not read.
func firstValue(stdout []byte) (jsontext.Value, int64, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(stdout), readOptions)
	v, err := dec.ReadValue()
	return v, dec.InputOffset(), err
}

// jsonProblem says what is wrong with a payload in the user's terms, not in
// Go's, and never quotes a value (it may be a secret): the JSON kind found,
// where (a JSON pointer such as /0/changes/2/logicalId), and what was
// expected.
func jsonProblem(err error, expected string) string {
	var syntax *jsontext.SyntacticError
	var semantic *jsonv2.SemanticError
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		errors.As(err, &syntax)
		return fmt.Sprintf("the name %q appears twice in one object (%s); cdkd prints each name once, and which value counts would be ambiguous", syntax.JSONPointer.LastToken(), at(syntax.JSONPointer, syntax.ByteOffset))
	case errors.As(err, &syntax) && invalidUTF8(syntax):
		return fmt.Sprintf("a string is not valid UTF-8 (%s); cdkd prints UTF-8, and a changed value could hide a secret", at(syntax.JSONPointer, syntax.ByteOffset))
	case errors.As(err, &syntax):
		return fmt.Sprintf("not valid JSON (%s: %v)", at(syntax.JSONPointer, syntax.ByteOffset), syntax.Err)
	case errors.As(err, &semantic) && semantic.JSONPointer == "":
		return fmt.Sprintf("expected %s, got a JSON %s", expected, kindName(semantic.JSONKind))
	case errors.As(err, &semantic):
		return fmt.Sprintf("field %q holds a JSON %s, which is not what cdkd prints there (at %s)", semantic.JSONPointer.LastToken(), kindName(semantic.JSONKind), semantic.JSONPointer)
	}
	return err.Error()
}

// invalidUTF8 reports a string that is not UTF-8: bytes, or an escaped
// lone surrogate. jsontext does not export the error it wraps.
func invalidUTF8(e *jsontext.SyntacticError) bool {
	msg := e.Err.Error()
	return strings.Contains(msg, "UTF-8") || strings.Contains(msg, "surrogate")
}

// malformed reports an input that is not JSON at all (text on stdout, a
// document cut short), as opposed to JSON the reader declines by choice.
func malformed(err error) bool {
	var syntax *jsontext.SyntacticError
	return errors.As(err, &syntax) && !errors.Is(err, jsontext.ErrDuplicateName) && !invalidUTF8(syntax)
}

// at is where in the input an error is: the byte, and the JSON pointer
// when there is one.
func at(p jsontext.Pointer, offset int64) string {
	if p == "" {
		return fmt.Sprintf("at byte %d", offset)
	}
	return fmt.Sprintf("at byte %d, in %s", offset, p)
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}
