package secrets

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The runner's `&` sections. PowerShell, printing an error about a command
// holding a secret, may colour or print apart the parts of it around `&`,
// so the runner's SecretMasker also masks two sections of every value that
// holds one (ValueEncoders.PowerShellPreAmpersandEscape and
// PowerShellPostAmpersandEscape): the value up to "&+", or else up to its
// last "&"; and the value after "&+" and the one character after it, or
// else after its last "&". Each only when it is 6 UTF-16 code units or
// more. The action hides exactly these sections too, so that what the log
// masks is hidden in the comment, the check run and every other channel.
// They are registered through Add, like any other value, so every rule of
// registration (and of what stays public) applies to them.

// minAmpersandSection is the runner's shortest section, in UTF-16 code units.
const minAmpersandSection = 6

// ampersandSections returns the sections of value the runner masks besides
// value itself; none when value holds no "&".
func ampersandSections(value string) []string {
	if !strings.Contains(value, "&") {
		return nil
	}
	var pre, post string
	if i := strings.Index(value, "&+"); i >= 0 {
		pre = value[:i+2]
		if rest := value[i+2:]; rest != "" {
			// The runner skips one UTF-16 code unit, the coloured letter;
			// a character outside the BMP would be cut in half there, and
			// a broken half matches nothing in valid text.
			if r, n := utf8.DecodeRuneInString(rest); utf16.RuneLen(r) == 1 {
				post = rest[n:]
			}
		}
	} else {
		last := strings.LastIndex(value, "&")
		pre, post = value[:last+1], value[last+1:]
	}
	var out []string
	for _, s := range []string{pre, post} {
		if s != value && utf16Units(s) >= minAmpersandSection {
			out = append(out, s)
		}
	}
	return out
}

// utf16Units is the length of s in UTF-16 code units, as .NET counts it.
func utf16Units(s string) int {
	n := 0
	for _, r := range s {
		n += max(1, utf16.RuneLen(r))
	}
	return n
}
