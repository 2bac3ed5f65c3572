package secrets

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The decoders blob.go reads runs with: lenient base64 (either
// alphabet), base32 and UTF-16LE.

// base64Val maps both base64 alphabets to their digits; -1 elsewhere.
var base64Val = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range len(std) {
		t[std[i]] = int8(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// base32Val maps RFC 4648's base32 alphabet to its digits; -1 elsewhere.
var base32Val = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	for i := range len(alphabet) {
		t[alphabet[i]] = int8(i)
	}
	return t
}()

// decodeBase64Lenient appends to dst the bytes s encodes in either base64
// alphabet; a byte outside them ends it. A last partial group gives the
// whole bytes it holds.
func decodeBase64Lenient(dst []byte, s string) []byte {
	var acc uint32
	bits := 0
	for i := 0; i < len(s); i++ {
		v := base64Val[s[i]]
		if v < 0 {
			break
		}
		acc = acc<<6 | uint32(v)
		bits += 6
		if bits >= 8 {
			bits -= 8
			dst = append(dst, byte(acc>>bits))
		}
	}
	return dst
}

// decodeBase32 appends to dst the bytes s encodes in base32.
func decodeBase32(dst []byte, s string) []byte {
	var acc uint32
	bits := 0
	for i := 0; i < len(s); i++ {
		v := base32Val[s[i]]
		if v < 0 {
			break
		}
		acc = acc<<5 | uint32(v)
		bits += 5
		if bits >= 8 {
			bits -= 8
			dst = append(dst, byte(acc>>bits))
		}
	}
	return dst
}

// utf16LE is b read as UTF-16LE, as UTF-8 (an odd last byte dropped).
func utf16LE(b []byte) []byte {
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	out := make([]byte, 0, len(units))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out
}
