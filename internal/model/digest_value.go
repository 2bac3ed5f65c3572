package model

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// canonicalJSON writes a JSON value's digest form straight from the
// tokenizer's tokens: what decoding it (DecodeJSON) and writing the
// decoded value would write, without building the value. Object members
// are written into the buffer as read, then put in name order (a
// repeated name's last value wins, as in a decoded map).
type canonicalJSON struct {
	dec     jsontext.Decoder
	r       bytes.Reader
	buf     []byte   // the value's digest form, built here
	names   []byte   // the names of the objects being read
	members []member // the members of the objects being read, innermost last
	text    []byte   // an unquoted string
}

// member is one object member: its name in names, its value's digest form
// in buf.
type member struct {
	name, value [2]int
}

var canonicals = sync.Pool{New: func() any { return new(canonicalJSON) }}

// digestForm returns the digest form of raw's first JSON value, or an
// error where DecodeJSON has one. The bytes are valid until c is reused.
func (c *canonicalJSON) digestForm(raw []byte) ([]byte, error) {
	c.r.Reset(raw)
	c.dec.Reset(&c.r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	c.buf, c.names, c.members = c.buf[:0], c.names[:0], c.members[:0]
	err := c.value()
	return c.buf, err
}

func (c *canonicalJSON) value() error {
	switch c.dec.PeekKind() {
	case '"', '0':
		v, err := c.dec.ReadValue()
		if err != nil {
			return err
		}
		if v.Kind() == '0' {
			c.buf = append(c.buf, 'd')
			c.buf = appendStr(c.buf, v)
			return nil
		}
		c.text, _ = jsontext.AppendUnquote(c.text[:0], v) // invalid UTF-8 becomes U+FFFD, as in DecodeJSON
		c.buf = append(c.buf, 's')
		c.buf = appendStr(c.buf, c.text)
		return nil
	case '[':
		return c.array()
	case '{':
		return c.object()
	}
	tok, err := c.dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		c.buf = append(c.buf, 'n')
	case 'f':
		c.buf = append(c.buf, 'F')
	case 't':
		c.buf = append(c.buf, 'T')
	default:
		return errors.New("unexpected JSON token " + tok.String()) // not reached: only a value can come here
	}
	return nil
}

func (c *canonicalJSON) array() error {
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	start, n := len(c.buf), 0
	for c.dec.PeekKind() != ']' {
		if err := c.value(); err != nil {
			return err
		}
		n++
	}
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	var head [24]byte
	h := appendCount(append(head[:0], '['), n)
	c.buf = slices.Insert(c.buf, start, h...)
	return nil
}

func (c *canonicalJSON) object() error {
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	start, first, names := len(c.buf), len(c.members), len(c.names)
	for c.dec.PeekKind() != '}' {
		name, err := c.dec.ReadValue()
		if err != nil {
			return err
		}
		var m member
		m.name[0] = len(c.names)
		c.names, _ = jsontext.AppendUnquote(c.names, name)
		m.name[1] = len(c.names)
		m.value[0] = len(c.buf)
		if err := c.value(); err != nil {
			return err
		}
		m.value[1] = len(c.buf)
		c.members = append(c.members, m)
	}
	if _, err := c.dec.ReadToken(); err != nil {
		return err
	}
	ms := c.members[first:]
	name := func(m member) []byte { return c.names[m.name[0]:m.name[1]] }
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(name(a), name(b)) })
	// A repeated name keeps its last value (the last of its run).
	kept := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(name(m), name(ms[i+1])) {
			continue
		}
		kept = append(kept, m)
	}
	// Write the object after its members as read, then move it down.
	end := len(c.buf)
	c.buf = appendCount(append(c.buf, '{'), len(kept))
	for _, m := range kept {
		c.buf = appendStr(c.buf, name(m))
		c.buf = append(c.buf, c.buf[m.value[0]:m.value[1]]...)
	}
	c.buf = c.buf[:start+copy(c.buf[start:], c.buf[end:])]
	c.names = c.names[:names]
	c.members = c.members[:first]
	return nil
}

// appendStr is digestWriter.str's form: a length-prefixed string.
func appendStr[T ~[]byte | ~string](b []byte, s T) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// appendCount is digestWriter.count's form.
func appendCount(b []byte, n int) []byte {
	var num [20]byte
	return appendStr(append(b, '#'), strconv.AppendInt(num[:0], int64(n), 10))
}
