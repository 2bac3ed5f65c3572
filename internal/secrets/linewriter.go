package secrets

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// maxPending bounds how much of an unterminated line LineWriter holds back.
// Past it, LineWriter writes out what no pattern can still extend into.
const maxPending = 64 << 10

// ErrClosed is returned by a Write after Close.
var ErrClosed = errors.New("secrets: write to closed LineWriter")

// LineWriter redacts a stream line by line before passing it on, so that a
// secret split across two Write calls is still redacted (redacting each Write on
// its own lets such a secret escape). Complete lines are written as soon as
// their '\n' arrives; a partial line waits for the rest, for Flush or for
// Close. Safe for concurrent use.
type LineWriter struct {
	mu      sync.Mutex
	dst     io.Writer
	set     *Set
	pending []byte
	err     error // sticky: the first error from dst, or ErrClosed
	// loose: redact with RedactLoose, holding back a line while its end
	// could start a value the next line completes (see looseCut).
	loose bool
}

// NewLineWriter returns a LineWriter that writes to dst what s leaves of the
// stream. It redacts with the values registered at the time each line is
// written.
func NewLineWriter(dst io.Writer, s *Set) *LineWriter {
	return &LineWriter{dst: dst, set: s}
}

// NewLooseLineWriter is NewLineWriter for cdkd's error output: it redacts
// with RedactLoose (another case or normalization, a line break at any
// column). A line whose end could be the start of a value wrapped onto the
// next line waits for that line (or Flush or Close); any other is written
// as soon as it is complete.
func NewLooseLineWriter(dst io.Writer, s *Set) *LineWriter {
	return &LineWriter{dst: dst, set: s, loose: true}
}

// Write buffers p and writes out, redacted, every line it completes.
func (w *LineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	held := len(w.pending)
	w.pending = append(w.pending, p...)
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		// Lines that may be the start of a wrapped base64 block wait for
		// the line that ends it: redacted alone, each would keep its part
		// of an encoded secret.
		n := openBlock(w.pending[:held+i+1])
		if w.loose {
			n = w.looseCut(n)
		}
		if err := w.emit(n); err != nil {
			return len(p), err
		}
	}
	if len(w.pending) > maxPending {
		if err := w.emitLongLine(); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// Flush writes out the partial line held back, redacted. Call it only where
// the stream is known to break (a secret split by a Flush is not redacted).
func (w *LineWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.emit(len(w.pending))
}

// Close flushes the partial line held back. It does not close dst.
func (w *LineWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		if w.err == ErrClosed {
			return nil
		}
		return w.err
	}
	err := w.emit(len(w.pending))
	if err == nil {
		w.err = ErrClosed
	}
	return err
}

// emit writes pending[:n] redacted and drops it from pending.
func (w *LineWriter) emit(n int) error {
	if n == 0 {
		return nil
	}
	redact := w.set.Redact
	if w.loose {
		redact = w.set.RedactLoose
	}
	out := redact(string(w.pending[:n]))
	w.pending = w.pending[:copy(w.pending, w.pending[n:])]
	written, err := io.WriteString(w.dst, out)
	if err == nil && written < len(out) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
	}
	return err
}

// emitLongLine writes out the start of a long unterminated line or of a
// long block of base64-looking lines, keeping back enough that no
// occurrence is cut: every occurrence starting in what is written ends
// within pending (pending keeps the longest pattern length minus one byte,
// not counting the line breaks a wrapped occurrence skips), and the cut
// never falls inside an occurrence, wrapped or not.
func (w *LineWriter) emitLongLine() error {
	var cut int
	var spans []span
	w.set.withMatcher(func(m *matcher) {
		// An escaped occurrence is up to maxEscapeGrowth times longer
		// than the pattern it decodes to.
		cut = keepBack(w.pending, max(m.maxLen-1, 0)*maxEscapeGrowth)
		if cut <= 0 {
			return
		}
		text := string(w.pending)
		spans = append(m.find(text, false), m.findWrapped(text, false, true)...)
		spans = append(spans, m.findDecoded(text, false)...)
	})
	if cut <= 0 {
		return nil
	}
	if w.loose {
		w.set.withLoose(func(ml *matcher) {
			// A loose value is at most twice its canonical pattern.
			cut = min(cut, keepBack(w.pending, 2*max(ml.maxLen-1, 0)))
			spans = append(spans, ml.findLoose(string(w.pending), false, true)...)
		})
	}
	for moved := true; moved; {
		moved = false
		for _, sp := range spans {
			if sp.start < cut && cut < sp.end {
				cut, moved = sp.start, true
			}
		}
	}
	return w.emit(cut)
}

// looseCut moves a cut at n back to the start of the line where a loose
// value may start that the text after n could still complete (see
// openPrefix), and never inside an occurrence found: a line is held back
// only while its end could be the start of a value wrapped onto the next.
func (w *LineWriter) looseCut(n int) int {
	cut := n
	var spans []span
	w.set.withLoose(func(ml *matcher) {
		if ml.maxLen == 0 {
			return
		}
		// Only the end can be open or hold an occurrence the cut may fall
		// in: look at the lines holding its last 4 patterns' worth of
		// bytes (a block held back for base64 may be long).
		win := keepBack(w.pending[:n], 4*ml.maxLen)
		for win > 0 && w.pending[win-1] != '\n' {
			win--
		}
		text := string(w.pending[win:n])
		cut = min(cut, win+ml.openPrefix(text))
		for _, sp := range ml.findLoose(text, false, true) {
			spans = append(spans, span{win + sp.start, win + sp.end})
		}
	})
	for moved := true; moved; {
		moved = false
		for _, sp := range spans {
			if sp.start < cut && cut < sp.end {
				cut, moved = sp.start, true
			}
		}
	}
	// A line is written whole.
	for cut > 0 && w.pending[cut-1] != '\n' {
		cut--
	}
	return cut
}
