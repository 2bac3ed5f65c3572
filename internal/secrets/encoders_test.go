package secrets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// encodedSecret is one record of testdata/secret-encodings/encoded.json:
// a random secret as a real tool (Node, Python, jq, od) encoded it, made
// by scripts/secret-encodings/generate. No encoder is re-implemented here.
type encodedSecret struct {
	Encoder string `json:"encoder"`
	Secret  string `json:"secret"`
	Encoded string `json:"encoded"`
}

func readEncodedSecrets(t *testing.T) []encodedSecret {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "secret-encodings", "encoded.json"))
	assert.NilError(t, err, "run scripts/secret-encodings/generate")
	var file struct {
		Tools   map[string]string `json:"tools"`
		Records []encodedSecret   `json:"records"`
	}
	assert.NilError(t, json.Unmarshal(b, &file))
	assert.Assert(t, len(file.Records) > 0 && file.Tools["node"] != "" && file.Tools["python3"] != "" && file.Tools["jq"] != "")
	return file.Records
}

// sinks are the ways a text leaves the redactor on its way to a sink: the
// API sinks' Redact and OneLine, the error path's RedactLoose, and the
// streamed log, exact and loose.
var sinks = map[string]func(s *Set, text string) string{
	"Redact":      (*Set).Redact,
	"OneLine":     (*Set).OneLine,
	"RedactLoose": (*Set).RedactLoose,
	"log":         func(s *Set, text string) string { return streamed(s, text, NewLineWriter) },
	"loose log":   func(s *Set, text string) string { return streamed(s, text, NewLooseLineWriter) },
}

func streamed(s *Set, text string, newWriter func(dst io.Writer, s *Set) *LineWriter) string {
	var out bytes.Buffer
	w := newWriter(&out, s)
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		_, _ = w.Write([]byte(sc.Text() + "\n"))
	}
	_ = w.Close()
	return out.String()
}

// TestRedactsWhatRealEncodersWrite: for every secret and every encoder of
// scripts/secret-encodings/encoders.tsv, the encoded secret, alone or
// inside text, reaches no sink.
func TestRedactsWhatRealEncodersWrite(t *testing.T) {
	recs := readEncodedSecrets(t)
	contexts := []string{"%s", "a%sb", "error: value=%s (exit 1)\nnext line", `{"key":"x","v":%s}`}
	for _, r := range recs {
		s := NewSet()
		s.Add(r.Secret, "test")
		for _, c := range contexts {
			text := strings.Replace(c, "%s", r.Encoded, 1)
			for name, sink := range sinks {
				out := sink(s, text)
				if strings.Contains(out, r.Encoded) || strings.Contains(out, r.Secret) || s.Contains(out) {
					t.Errorf("%s: %s of %q leaves the secret %q in %q", r.Encoder, name, text, r.Secret, out)
				}
			}
		}
	}
}

// TestEncoderListIsQuoted: docs/secrets.md quotes the list of encoders the
// fixtures are made with, line for line.
func TestEncoderListIsQuoted(t *testing.T) {
	list, err := os.ReadFile(filepath.Join("..", "..", "scripts", "secret-encodings", "encoders.tsv"))
	assert.NilError(t, err)
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "secrets.md"))
	assert.NilError(t, err)
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, command, _ := strings.Cut(line, "\t")
		names[name] = true
		assert.Assert(t, strings.Contains(string(docs), "| `"+name+"` | `"+strings.ReplaceAll(command, "|", `\|`)+"` |"),
			"docs/secrets.md does not quote the encoder %s as scripts/secret-encodings/encoders.tsv lists it", name)
	}
	for _, r := range readEncodedSecrets(t) {
		assert.Assert(t, names[r.Encoder], "the fixtures hold encoder %s, which the list does not: run scripts/secret-encodings/generate", r.Encoder)
	}
}
