package secrets

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
	"gotest.tools/v3/assert"
)

// TestRedactLooseShapes: on the error path a secret upper-cased, in
// another normalization or wrapped at any column (indented or not, LF or
// CRLF) is redacted, each line's piece on its own line.
func TestRedactLooseShapes(t *testing.T) {
	pw := "ENC0DED-pw/Secret+Value=77?x"
	uni := norm.NFC.String("pässwörd-ünï-🔑-秘密")
	s := newSet(t, pw, uni)
	check := func(t *testing.T, text string, pieces ...string) {
		t.Helper()
		out := s.RedactLoose(text)
		for _, p := range pieces {
			if len(strings.TrimSpace(p)) >= 2 {
				assert.Assert(t, !strings.Contains(out, strings.TrimSpace(p)), "piece %q survives in %q", p, out)
			}
		}
		assert.Assert(t, strings.Contains(out, Replacement), "%q", out)
		assert.Assert(t, !s.ContainsLoose(out), "%q", out)
		assert.Equal(t, s.RedactLoose(out), out, "idempotent")
		assert.Assert(t, s.ContainsLoose(text))
	}
	t.Run("upper-case", func(t *testing.T) {
		check(t, "Error: bad password "+strings.ToUpper(pw)+" given", strings.ToUpper(pw))
	})
	t.Run("lower-case", func(t *testing.T) {
		check(t, "error: "+strings.ToLower(pw), strings.ToLower(pw))
	})
	t.Run("upper-case unicode", func(t *testing.T) {
		check(t, "Error: "+strings.ToUpper(uni)+".", strings.ToUpper(uni))
	})
	t.Run("NFD of an NFC secret", func(t *testing.T) {
		nfd := norm.NFD.String(uni)
		assert.Assert(t, nfd != uni)
		check(t, "Error: "+nfd+".", nfd)
	})
	for _, v := range []string{pw, uni} {
		for _, brk := range []string{"\n", "\r\n", "\n    ", "  \n\t"} {
			for col := 1; col < len(v); col++ {
				if !utf8RuneStart(v, col) {
					continue
				}
				text := "Error: cdkd failed for " + v[:col] + brk + v[col:] + " (exit 1)\nnext line"
				check(t, text, v[:col], v[col:])
				out := s.RedactLoose(text)
				assert.Equal(t, strings.Count(out, "\n"), strings.Count(text, "\n"), "line breaks stay: %q", out)
			}
		}
	}
	t.Run("wrapped at a space the wrapper dropped", func(t *testing.T) {
		spaced := "correct horse battery staple"
		s := newSet(t, spaced)
		out := s.RedactLoose("Error: correct horse\n  battery staple was rejected")
		assert.Equal(t, out, "Error: ***\n  *** was rejected")
	})
}

func utf8RuneStart(v string, i int) bool { return v[i]&0xC0 != 0x80 }

// TestRedactLooseSparesShortValues: a value under MinLooseRunes is matched
// exactly only, so ordinary words in another case or split by a line
// break stay.
func TestRedactLooseSparesShortValues(t *testing.T) {
	s := newSet(t, "stack", "Error12", "hunter2-noecho-v1", "password", "DatabasePassword")
	text := "Error: STACK failed\nERROR12 at stac\nk, Stack; DbPassword is wrong"
	assert.Equal(t, s.RedactLoose(text), text)
	assert.Equal(t, s.RedactLoose("the DATABASEPASSWORD"), "the ***", "16 letters are matched loosely")
	assert.Equal(t, s.RedactLoose("stack"), Replacement, "exact matching stays")
}

// TestLooseLineWriterWrappedAcrossWrites: a value wrapped across two lines
// that arrive in separate writes is redacted in the streamed log.
func TestLooseLineWriterWrappedAcrossWrites(t *testing.T) {
	pw := "ENC0DED-pw/Secret+Value=77?x"
	s := newSet(t, pw)
	var out bytes.Buffer
	w := NewLooseLineWriter(&out, s)
	for _, line := range []string{"progress 1\n", "Error: the value ENC0DED-PW/SEC\n", "    RET+VALUE=77?X is not allowed\n", "more\n"} {
		_, err := w.Write([]byte(line))
		assert.NilError(t, err)
	}
	assert.NilError(t, w.Close())
	got := out.String()
	assert.Equal(t, got, "progress 1\nError: the value ***\n    *** is not allowed\nmore\n")
}

// TestLooseLineWriterHoldsBackOnlyWhatMayContinue: a line is written at
// once unless its end could start a value that the next line completes.
func TestLooseLineWriterHoldsBackOnlyWhatMayContinue(t *testing.T) {
	s := newSet(t, "actions-runtime-token-3c1f9e", "ENC0DED-pw/Secret+Value=77?x")
	var out bytes.Buffer
	w := NewLooseLineWriter(&out, s)
	for _, line := range []string{"Deploying stack: StackA\n", "  Queue (AWS::SQS::Queue) created\n", "token: a\n"} {
		_, err := w.Write([]byte(line))
		assert.NilError(t, err)
	}
	assert.Equal(t, out.String(), "Deploying stack: StackA\n  Queue (AWS::SQS::Queue) created\n",
		"\"a\" after a blank may start a value: only that line waits")
	_, err := w.Write([]byte("b\n"))
	assert.NilError(t, err)
	assert.Equal(t, out.String(), "Deploying stack: StackA\n  Queue (AWS::SQS::Queue) created\ntoken: a\nb\n")
}
