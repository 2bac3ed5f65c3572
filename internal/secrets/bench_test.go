package secrets

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchSet returns a Set of n random values and a text of about size bytes
// of JSON-like log lines, with a value (or an encoding of one) on about one
// line in fifty.
func benchSet(n, size int) (*Set, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_/+=!"
	s := NewSet()
	values := make([]string, n)
	for i := range values {
		b := make([]byte, 12+rng.IntN(28))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		values[i] = string(b)
		s.Add(values[i], fmt.Sprintf("value %d", i))
	}
	var text strings.Builder
	for i := 0; text.Len() < size; i++ {
		fmt.Fprintf(&text, `{"ts":"2025-01-01T00:00:%02dZ","stack":"StackA","resource":"MyBucket%d","property":"Properties.Tags[%d].Value","before":"some-old-value-%d","after":"some-new-value"}`, i%60, i, i%7, i)
		if i%50 == 0 {
			v := values[rng.IntN(n)]
			text.WriteString(" secret=" + v + " b64=" + base64Of(v))
		}
		text.WriteByte('\n')
	}
	return s, text.String()
}

func BenchmarkRedact(b *testing.B) { benchRedact(b, 200) }

// benchRedact measures Redact over about 5 MB of benchSet's log lines with
// n known values.
func benchRedact(b *testing.B, n int) {
	s, text := benchSet(n, 5<<20)
	_ = s.Redact("warm up the matcher")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		_ = s.Redact(text)
	}
}

// randomBase64Lines is size random bytes in base64, wrapped at 64 columns.
func randomBase64Lines(size int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	raw := make([]byte, size)
	for i := range raw {
		raw[i] = byte(rng.IntN(256))
	}
	var lines []string
	for enc := base64Of(string(raw)); len(enc) > 64; enc = enc[64:] {
		lines = append(lines, enc[:64]+"\n")
	}
	return lines
}

// BenchmarkRedactWrapped measures a log that is mostly wrapped base64 (a
// certificate bundle, a dumped blob), the worst case of the block scan.
func BenchmarkRedactWrapped(b *testing.B) {
	s, _ := benchSet(200, 0)
	text := strings.Join(randomBase64Lines(3<<20, 3), "")
	_ = s.Redact("warm up the matcher")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		_ = s.Redact(text)
	}
}

// BenchmarkLearn measures learning n values one by one with a redaction
// after each, as a pipeline does while it discovers secrets. The ns/value
// metric stays flat as n grows when learning is linear.
func BenchmarkLearn(b *testing.B) {
	for _, n := range []int{125, 500, 2000, 8000} {
		values := randomValues(n)
		b.Run(fmt.Sprintf("values=%d", n), func(b *testing.B) {
			for b.Loop() {
				s := NewSet()
				for i, v := range values {
					s.Add(v, "value")
					_ = s.Redact(values[(i*7)%len(values)])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
		})
	}
}

// randomValues returns n distinct random secret-like values.
func randomValues(n int) []string {
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_/+=!"
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 12+rng.IntN(28))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		out[i] = fmt.Sprintf("%s%d", b, i)
	}
	return out
}

// TestLearningCostDoesNotGrowWithTheSet holds learning linear: adding one
// value and redacting costs the same allocations in a set of 2,000 values as
// in a set of 10. Rebuilding the matcher on every change (the quadratic
// way) allocates for every value already known.
func TestLearningCostDoesNotGrowWithTheSet(t *testing.T) {
	values := randomValues(2100)
	cost := func(known int) float64 {
		t.Helper()
		s := NewSet()
		for _, v := range values[:known] {
			s.Add(v, "known")
		}
		_ = s.Redact("warm up")
		next := known
		return testing.AllocsPerRun(50, func() {
			s.Add(values[next], "new")
			next++
			_ = s.Redact("a short line of text that holds no secret")
		})
	}
	small, large := cost(10), cost(2000)
	if large > 2*small+4 {
		t.Errorf("adding a value to a set of 2000 costs %.0f allocations, to a set of 10 %.0f: learning grows with the set", large, small)
	}
}

func TestBenchSetIsRedacted(t *testing.T) {
	s, text := benchSet(20, 64<<10)
	out := s.Redact(text)
	if s.Contains(out) || !strings.Contains(out, "secret=*** b64=***") {
		t.Fatalf("benchmark input not redacted as expected")
	}
}

// BenchmarkRedactSecrets measures redaction of about 5 MB of log lines with
// 1 and with 1,000 known secrets: the MB/s it reports is the time per MB of
// text the docs promise does not grow with what is known.
//
// blobs=off is RedactExceptBlobs, the redaction before blobs were decoded
// (and still layouts 1 to 3's): the pair is the cost of blob decoding.
func BenchmarkRedactSecrets(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("secrets=%d", n), func(b *testing.B) { benchRedact(b, n) })
		b.Run(fmt.Sprintf("secrets=%d/blobs=off", n), func(b *testing.B) {
			s, text := benchSet(n, 5<<20)
			_ = s.Redact("warm up the matcher")
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			for b.Loop() {
				_ = s.RedactExceptBlobs(text)
			}
		})
	}
}

// BenchmarkLooseLineWriter streams a log of JSON lines and a wrapped
// base64 block through the error path's writer, line by line as cdkd.Runner
// writes it: holding lines back must not make it quadratic.
func BenchmarkLooseLineWriter(b *testing.B) {
	s, text := benchSet(200, 1<<20)
	lines := append(strings.SplitAfter(text, "\n"), randomBase64Lines(256<<10, 7)...)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	_ = s.Redact("warm up the matcher")
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		w := NewLooseLineWriter(io.Discard, s)
		for _, l := range lines {
			_, _ = w.Write([]byte(l))
		}
		_ = w.Close()
	}
}

// BenchmarkRedactEscaped measures text as a rendered report carries it:
// every Markdown and HTML character an entity, so that the text is decoded
// as well as searched (see decode.go).
func BenchmarkRedactEscaped(b *testing.B) {
	s, text := benchSet(200, 5<<20)
	text = reportEscape(text)
	_ = s.Redact("warm up the matcher")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		_ = s.Redact(text)
	}
}
