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
	out, ok := plainList(pr, '{', pr.statement)
	return out, ok && len(out) > 0
}

// plainList reads a list of the values read reads (each starting with
// the token kind), or one such value alone.
func plainList[T any](pr *plainReader, kind jsontext.Kind, read func() (T, bool)) ([]T, bool) {
	if pr.dec.PeekKind() == kind {
		v, ok := read()
		return []T{v}, ok
	}
	if !pr.delim('[') {
		return nil, false
	}
	var out []T
	for pr.dec.PeekKind() == kind {
		v, ok := read()
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, pr.delim(']')
}

// listMembers are the members of a statement that hold a list, each
// followed by its Not form.
var listMembers = []string{"Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource"}

// statement reads one plain statement, as statement reads its decoded
// value.
func (pr *plainReader) statement() (Statement, bool) {
	var st Statement
	if !pr.delim('{') {
		return st, false
	}
	var seen [6]bool // of each of listMembers
	for pr.dec.PeekKind() == '"' {
		name, err := pr.dec.ReadToken()
		if err != nil {
			return st, false
		}
		ok := false
		switch n := name.String(); n {
		case "Sid":
			st.Sid, ok = pr.text()
		case "Effect":
			st.Effect, ok = pr.text()
		default:
			i := slices.Index(listMembers, n)
			if i < 0 {
				return st, false // a condition, or a member statement reads as unknown
			}
			seen[i] = true
			read := pr.texts
			if i < 2 {
				read = pr.principal
			}
			lists := [...]*[]string{&st.Principals, &st.Actions, &st.Resources}
			*lists[i/2], ok = read()
		}
		if !ok {
			return st, false
		}
	}
	for i := 0; i < len(seen); i += 2 {
		if seen[i] && seen[i+1] {
			return st, false // both forms: statement reads the Not one
		}
	}
	st.NotPrincipal, st.NotAction, st.NotResource = seen[1], seen[3], seen[5]
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
	out, ok := plainList(pr, '"', pr.text)
	if !ok {
		return nil, false
	}
	slices.Sort(out)
	return slices.Compact(out), true
}
