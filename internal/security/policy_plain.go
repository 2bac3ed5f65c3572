package security

import (
	"bytes"
	"io"
	"slices"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// plainStatements reads a policy document as statements reads its decoded
// value, straight from its JSON, when the document has the plain shape
// most have: an object whose Statement is a list of (or one) statement
// objects holding only Sid, Effect (Allow or Deny), Principal, Action and
// Resource or their Not forms, each a string, Action and Resource also a
// list of strings. It builds no tree of the document: decoding one was
// most of what the security rows of a diff of thousands of policies
// allocated. ok is false for any other document (a condition, a principal
// block, an intrinsic, no statement, a repeated name, JSON or UTF-8 that
// is not valid, text after the document): statements reads it from its
// decoded value instead. TestPlainStatementsAreStatements holds the two
// to the same result.
func plainStatements(raw []byte) (out []Statement, ok bool) {
	pr := plainReaders.Get().(*plainReader)
	defer plainReaders.Put(pr)
	pr.r.Reset(raw)
	pr.dec.Reset(&pr.r) // a repeated name or invalid UTF-8 is an error
	dec := &pr.dec
	if !pr.delim('{') {
		return nil, false
	}
	found := false
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		if name.String() != "Statement" {
			if dec.SkipValue() != nil {
				return nil, false
			}
			continue
		}
		found = true
		if out, ok = pr.statementList(); !ok {
			return nil, false
		}
	}
	if !found || !pr.delim('}') {
		return nil, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, false
	}
	return out, true
}

// plainReader is a JSON decoder with its reader, both reused.
type plainReader struct {
	dec jsontext.Decoder
	r   bytes.Reader
}

var plainReaders = sync.Pool{New: func() any { return new(plainReader) }}

// delim reads the token delim; false for anything else.
func (pr *plainReader) delim(delim jsontext.Kind) bool {
	if pr.dec.PeekKind() != delim {
		return false
	}
	_, err := pr.dec.ReadToken()
	return err == nil
}

// statementList reads a non-empty list of plain statements, or one.
func (pr *plainReader) statementList() ([]Statement, bool) {
	if pr.dec.PeekKind() == '{' {
		st, ok := pr.statement()
		return []Statement{st}, ok
	}
	if !pr.delim('[') {
		return nil, false
	}
	var out []Statement
	for pr.dec.PeekKind() == '{' {
		st, ok := pr.statement()
		if !ok {
			return nil, false
		}
		out = append(out, st)
	}
	return out, len(out) > 0 && pr.delim(']')
}

// statement reads one plain statement, as statement reads its decoded
// value.
func (pr *plainReader) statement() (Statement, bool) {
	var st Statement
	if !pr.delim('{') {
		return st, false
	}
	// A statement with both a name and its Not form is read by statement.
	var action, resource, principal, notAction, notResource, notPrincipal bool
	for pr.dec.PeekKind() == '"' {
		name, err := pr.dec.ReadToken()
		if err != nil {
			return st, false
		}
		ok := false
		switch name.String() {
		case "Sid":
			st.Sid, ok = pr.text()
		case "Effect":
			st.Effect, ok = pr.text()
		case "Principal":
			st.Principals, ok = pr.principal()
			principal = true
		case "NotPrincipal":
			st.Principals, ok = pr.principal()
			notPrincipal = true
		case "Action":
			st.Actions, ok = pr.texts()
			action = true
		case "NotAction":
			st.Actions, ok = pr.texts()
			notAction = true
		case "Resource":
			st.Resources, ok = pr.texts()
			resource = true
		case "NotResource":
			st.Resources, ok = pr.texts()
			notResource = true
		}
		if !ok {
			return st, false
		}
	}
	if action && notAction || resource && notResource || principal && notPrincipal {
		return st, false
	}
	st.NotAction, st.NotResource, st.NotPrincipal = notAction, notResource, notPrincipal
	return st, (st.Effect == "Allow" || st.Effect == "Deny") && pr.delim('}')
}

// principal reads a principal that is a string ("*"), as principals does.
func (pr *plainReader) principal() ([]string, bool) {
	s, ok := pr.text()
	return []string{s}, ok
}

// text reads a string.
func (pr *plainReader) text() (string, bool) {
	if pr.dec.PeekKind() != '"' {
		return "", false
	}
	tok, err := pr.dec.ReadToken()
	if err != nil {
		return "", false
	}
	return tok.String(), true
}

// texts reads a string or a list of strings as strs does: sorted, each
// once, nil for none.
func (pr *plainReader) texts() ([]string, bool) {
	if pr.dec.PeekKind() == '"' {
		s, ok := pr.text()
		return []string{s}, ok
	}
	if !pr.delim('[') {
		return nil, false
	}
	var out []string
	for pr.dec.PeekKind() == '"' {
		s, ok := pr.text()
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	if !pr.delim(']') {
		return nil, false
	}
	slices.Sort(out)
	return slices.Compact(out), true
}
