package cdkd

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// A JSON scanner over bytes, without reflection, for scanDiffNodes: it
// reads what cdkd prints and declines (false) anything else, so that
// encoding/json stays the reference for every result and every error.

type scanner struct {
	b     []byte
	i     int
	depth int
	// names holds the strings that repeat (types, paths, regions) once.
	names map[string]string
	// slab hands out the *string fields without one allocation each.
	slab []string
	// Scratch for the lists being read (see listVia).
	changes    []changeJSON
	outputs    []outputJSON
	properties []propertyJSON
	attributes []model.AttributeChange
}

// peek skips white space and returns the next byte, 0 at the end.
func (s *scanner) peek() byte {
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

func (s *scanner) consume(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// array calls elem for each element of the array that must come next.
func (s *scanner) array(elem func() bool) bool {
	if !s.consume('[') {
		return false
	}
	if s.depth++; s.depth > maxDepth {
		return false
	}
	defer func() { s.depth-- }()
	if s.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if !s.consume(',') {
			return s.consume(']')
		}
	}
}

// object calls field with each key of the object that must come next;
// plain says the key has no escape and no byte outside ASCII.
func (s *scanner) object(field func(key []byte, plain bool) bool) bool {
	if !s.consume('{') {
		return false
	}
	if s.depth++; s.depth > maxDepth {
		return false
	}
	defer func() { s.depth-- }()
	if s.consume('}') {
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		start := s.i
		plain, ok := s.skipString()
		if !ok {
			return false
		}
		key := s.b[start+1 : s.i-1]
		if !s.consume(':') || !field(key, plain) {
			return false
		}
		if !s.consume(',') {
			return s.consume('}')
		}
	}
}

// fields reads an object whose known keys are names, calling set with a
// known key's index. Other keys are skipped, unless encoding/json would
// take them for a known one.
func (s *scanner) fields(names []string, set func(k int) bool) bool {
	var seen uint64
	return s.object(func(key []byte, plain bool) bool {
		if !plain {
			return false
		}
		for k, n := range names {
			if string(key) == n {
				if seen&(1<<k) != 0 {
					return false
				}
				seen |= 1 << k
				return set(k)
			}
		}
		for _, n := range names {
			if asciiEqualFold(key, n) {
				return false
			}
		}
		return s.skip()
	})
}

func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// skip passes over one valid JSON value.
func (s *scanner) skip() bool {
	switch s.peek() {
	case '{':
		return s.object(func([]byte, bool) bool { return s.skip() })
	case '[':
		return s.array(s.skip)
	case '"':
		_, ok := s.skipString()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.skipNumber()
}

func (s *scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// skipString passes over the string at s.i; plain says it holds no
// escape and no byte outside ASCII.
func (s *scanner) skipString() (plain, ok bool) {
	b, i := s.b, s.i+1
	plain = true
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return plain, true
		case c < 0x20:
			return false, false
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false, false
				}
				i += 6
			default:
				return false, false
			}
		case c >= utf8.RuneSelf:
			plain = false
			i++
		default:
			i++
		}
	}
	return false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber passes over a number in JSON's grammar.
func (s *scanner) skipNumber() bool {
	b, i := s.b, s.i
	digits := func() bool {
		start := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		return i > start
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

// name is str for a string that repeats across the diff (a resource type,
// a property path): each distinct one is allocated once.
func (s *scanner) name() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i
	plain, ok := s.skipString()
	if !ok {
		return "", false
	}
	if !plain {
		s.i = start
		return s.str()
	}
	raw := s.b[start+1 : s.i-1]
	if v, ok := s.names[string(raw)]; ok {
		return v, true
	}
	v := string(raw)
	s.names[v] = v
	return v, true
}

// str reads a string; anything else declines (json.Unmarshal leaves a
// pointer nil for null, which the caller would have to tell apart).
func (s *scanner) str() (string, bool) {
	if s.peek() != '"' {
		return "", false
	}
	start := s.i
	plain, ok := s.skipString()
	if !ok {
		return "", false
	}
	if raw := s.b[start+1 : s.i-1]; plain || (bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)) {
		return string(raw), true
	}
	// Escapes and invalid UTF-8 are rare: encoding/json decodes them.
	var v string
	if json.Unmarshal(s.b[start:s.i], &v) != nil {
		return "", false
	}
	return v, true
}

func (s *scanner) strPtr(read func() (string, bool)) (*string, bool) {
	if len(s.slab) == 0 {
		s.slab = make([]string, 256)
	}
	p := &s.slab[0]
	s.slab = s.slab[1:]
	var ok bool
	*p, ok = read()
	return p, ok
}

func (s *scanner) boolean() (bool, bool) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// raw is the next value as it is written, null included.
func (s *scanner) raw() ([]byte, bool) {
	s.peek()
	start := s.i
	if !s.skip() {
		return nil, false
	}
	return s.b[start:s.i:s.i], true
}

func (s *scanner) value() (model.Value, bool) {
	r, ok := s.raw()
	return model.Value{Raw: r}, ok
}

// list reads an array of T (never nil, as json.Unmarshal gives for []).
func list[T any](s *scanner, elem func(*T) bool) ([]T, bool) {
	out := make([]T, 0)
	ok := s.array(func() bool {
		// Read into place: a pointer to a local would cost an allocation.
		var zero T
		out = append(out, zero)
		return elem(&out[len(out)-1])
	})
	return out, ok
}

// listVia is list reading into scratch, a buffer shared by every list of
// T, and copying the list out at its final size: grown element by element,
// the lists of a large diff allocated twice their size and cleared it. An
// element must not hold a list of T itself (its pointer into scratch would
// move).
func listVia[T any](s *scanner, scratch *[]T, elem func(*T) bool) ([]T, bool) {
	base := len(*scratch)
	defer func() { *scratch = (*scratch)[:base] }()
	ok := s.array(func() bool {
		var zero T
		*scratch = append(*scratch, zero)
		return elem(&(*scratch)[len(*scratch)-1])
	})
	if !ok {
		return nil, false
	}
	out := make([]T, len(*scratch)-base)
	copy(out, (*scratch)[base:])
	return out, true
}
