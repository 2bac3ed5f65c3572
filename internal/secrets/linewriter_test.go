package secrets

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{
			name:   "secret split across two writes",
			writes: []string{"password: hunter2-no", "echo-v1 ok\n"},
			want:   "password: *** ok\n",
		},
		{
			name:   "one byte at a time",
			writes: strings.Split("a hunter2-noecho-v1 b\nc hunter2-noecho-v1\n", ""),
			want:   "a *** b\nc ***\n",
		},
		{
			name:   "several lines in one write, partial line last",
			writes: []string{"l1 hunter2-noecho-v1\nl2\nl3 hunter2-", "noecho-v1"},
			want:   "l1 ***\nl2\nl3 ***",
		},
		{
			name:   "multi-line secret split at its line break",
			writes: []string{"-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\r\n", "qZk0W2yT+/lqXn8eK1vC\n-----END KEY-----\n"},
			want:   "***\n***\r\n***\n***\n",
		},
		{
			name:   "nothing to redact",
			writes: []string{"plain ", "text\n", "tail"},
			want:   "plain text\ntail",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSet(t, noEcho, multiLine)
			var dst bytes.Buffer
			w := NewLineWriter(&dst, s)
			for _, p := range tc.writes {
				n, err := w.Write([]byte(p))
				assert.NilError(t, err)
				assert.Equal(t, n, len(p))
			}
			assert.NilError(t, w.Close())
			assert.Equal(t, dst.String(), tc.want)
		})
	}
}

func TestLineWriterHoldsPartialLine(t *testing.T) {
	s := newSet(t, noEcho)
	var dst bytes.Buffer
	w := NewLineWriter(&dst, s)

	_, err := w.Write([]byte("done\nhunter2-"))
	assert.NilError(t, err)
	assert.Equal(t, dst.String(), "done\n")

	assert.NilError(t, w.Flush())
	assert.Equal(t, dst.String(), "done\nhunter2-")

	_, err = w.Write([]byte("x\n"))
	assert.NilError(t, err)
	assert.Equal(t, dst.String(), "done\nhunter2-x\n")
}

// TestLineWriterUsesValuesAddedLater: a value registered while a line is
// being written is redacted from that line.
func TestLineWriterUsesValuesAddedLater(t *testing.T) {
	s := NewSet()
	var dst bytes.Buffer
	w := NewLineWriter(&dst, s)
	_, err := w.Write([]byte("token: hunter2-"))
	assert.NilError(t, err)
	s.Add(noEcho, "late")
	_, err = w.Write([]byte("noecho-v1\n"))
	assert.NilError(t, err)
	assert.Equal(t, dst.String(), "token: ***\n")
}

// TestLineWriterLongLine: a line longer than the buffer limit is written out
// in pieces, never cutting an occurrence.
func TestLineWriterLongLine(t *testing.T) {
	s := newSet(t, noEcho, "a-much-longer-secret-value-for-keep")
	var in strings.Builder
	for in.Len() < 3*maxPending {
		in.WriteString("filler ")
		in.WriteString(noEcho)
		in.WriteString(" ")
		in.WriteString(base64Of("a-much-longer-secret-value-for-keep"))
	}
	input := in.String()

	for _, chunk := range []int{1, 7, 4096, maxPending + 13} {
		var dst bytes.Buffer
		w := NewLineWriter(&dst, s)
		for i := 0; i < len(input); i += chunk {
			_, err := w.Write([]byte(input[i:min(i+chunk, len(input))]))
			assert.NilError(t, err)
			assert.Assert(t, len(w.pending) <= maxPending+chunk, "pending %d", len(w.pending))
		}
		assert.Assert(t, dst.Len() > 0, "chunk %d: nothing written before Close", chunk)
		assert.NilError(t, w.Close())
		assert.Equal(t, dst.String(), s.Redact(input), "chunk %d", chunk)
	}
}

func base64Of(v string) string {
	return base64Forms(v)[0]
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestLineWriterErrors(t *testing.T) {
	s := newSet(t, noEcho)

	dst := &failWriter{}
	w := NewLineWriter(dst, s)
	_, err := w.Write([]byte("line\n"))
	assert.ErrorContains(t, err, "disk full")
	_, err = w.Write([]byte("more\n"))
	assert.ErrorContains(t, err, "disk full")
	assert.Equal(t, dst.n, 1, "an error is sticky")
	assert.ErrorContains(t, w.Close(), "disk full")

	var buf bytes.Buffer
	w = NewLineWriter(&buf, s)
	assert.NilError(t, w.Close())
	assert.NilError(t, w.Close())
	_, err = w.Write([]byte("x"))
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, w.Flush(), ErrClosed)
}
