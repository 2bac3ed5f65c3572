package runnermask

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// variations returns the strings the runner's SecretMasker.AddValue
// registers for value: the value itself and the output of each value encoder
// the runner installs in HostContext (src/Runner.Common/HostContext.cs), in
// that order, dropping empty results.
//
// Modelled on github.com/actions/runner src/Sdk/DTLogging/Logging/
// ValueEncoders.cs. Some runner builds trim the base64 padding instead
// (EnumerateBase64Variations, ADR 0297) and add URL-safe base64; the trimmed
// forms are substrings of the padded ones and mask more, so modelling the
// padded forms errs on the side of showing a leak, never of hiding one.
//
// This file deliberately does not share code with package secrets: the
// simulator is the independent check of that package's redactor.
func variations(value string) []string {
	all := []string{
		value,
		base64Shift(value, 0),                // Base64StringEscape
		base64Shift(value, 1),                // Base64StringEscapeShift1
		base64Shift(value, 2),                // Base64StringEscapeShift2
		strings.ReplaceAll(value, `"`, `\"`), // CommandLineArgumentEscape
		strings.ReplaceAll(value, "'", "''"), // ExpressionStringEscape (ExpressionUtility.StringEscape)
		newtonsoftEscape(value),              // JsonStringEscape (JsonConvert.ToString without quotes)
		escapeDataString(value),              // UriDataEscape (Uri.EscapeDataString)
		securityElementEscape(value),         // XmlDataEscape (SecurityElement.Escape)
		trimDoubleQuotes(value),              // TrimDoubleQuotes
		powerShellPreAmpersand(value),        // PowerShellPreAmpersandEscape
		powerShellPostAmpersand(value),       // PowerShellPostAmpersandEscape
	}
	seen := make(map[string]bool, len(all))
	out := all[:0]
	for _, v := range all {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// base64Shift is Base64StringEscapeShift: the padded base64 of the UTF-8
// bytes of value without its first shift bytes, or of all of them when value
// is not longer than shift.
func base64Shift(value string, shift int) string {
	b := []byte(value)
	if len(b) > shift {
		b = b[shift:]
	}
	return base64.StdEncoding.EncodeToString(b)
}

// newtonsoftEscape is JsonConvert.ToString(value) without its quotes, with
// Newtonsoft's default StringEscapeHandling: short escapes for \b \t \n \f \r
// \" \\, \u00xx (lower-case hex) for other control characters, and \u0085,
// \u2028, \u2029.
func newtonsoftEscape(value string) string {
	var b strings.Builder
	for _, r := range value {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x85 || r == 0x2028 || r == 0x2029 {
				b.WriteString(`\u`)
				const hex = "0123456789abcdef"
				b.WriteByte(hex[r>>12&15])
				b.WriteByte(hex[r>>8&15])
				b.WriteByte(hex[r>>4&15])
				b.WriteByte(hex[r&15])
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeDataString is .NET's Uri.EscapeDataString: every UTF-8 byte but the
// RFC 3986 unreserved characters percent-encoded with upper-case hex.
func escapeDataString(value string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// securityElementEscape is System.Security.SecurityElement.Escape.
func securityElementEscape(value string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;", "&", "&amp;").Replace(value)
}

// trimDoubleQuotes is TrimDoubleQuotes: the inside of a value longer than 8
// UTF-16 code units that starts and ends with a double quote.
func trimDoubleQuotes(value string) string {
	if utf16Len(value) > 8 && strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`) {
		return value[1 : len(value)-1]
	}
	return ""
}

// powerShellPreAmpersand is PowerShellPreAmpersandEscape: the part of the
// value up to "&+" or up to its last "&", when at least 6 UTF-16 code units.
func powerShellPreAmpersand(value string) string {
	if !strings.Contains(value, "&") {
		return ""
	}
	var section string
	if i := strings.Index(value, "&+"); i >= 0 {
		section = value[:i+2]
	} else {
		section = value[:strings.LastIndex(value, "&")+1]
	}
	if utf16Len(section) >= 6 {
		return section
	}
	return ""
}

// powerShellPostAmpersand is PowerShellPostAmpersandEscape: the part of the
// value after "&+" and one more character, or after its last "&", when at
// least 6 UTF-16 code units.
func powerShellPostAmpersand(value string) string {
	if !strings.Contains(value, "&") {
		return ""
	}
	var section string
	if i := strings.Index(value, "&+"); i >= 0 {
		rest := value[i+2:]
		if rest != "" {
			// Skip one UTF-16 code unit ("the letter that got colored").
			r, size := utf8.DecodeRuneInString(rest)
			if r <= 0xFFFF || r == utf8.RuneError {
				section = rest[size:]
			}
			// A supplementary rune is two code units: .NET would cut it in
			// half; we drop the section rather than model a broken string.
		}
	} else {
		section = value[strings.LastIndex(value, "&")+1:]
	}
	if utf16Len(section) >= 6 {
		return section
	}
	return ""
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
