package secrets

// Hex runs: a value written out in hex, either case (encoders.tsv's hex
// and hex-upper-case), is found by decoding every long enough run of hex
// digits and matching the bytes it stands for. The escape sequences are
// decode.go's.

// forEachHexRun calls fn with each run of at least minHexRun hex digits,
// decoded from its first digit and, when the run is long enough, from its
// second: an occurrence inside a longer hex blob starts at an even or odd
// digit depending on what precedes it.
func forEachHexRun(text string, fn func(v *view) bool) {
	// i is always where a run may start (text[i-1] is not a hex digit),
	// and a run needs minHexRun digits: when the last of them is not a
	// digit, no run starts in the window, and the scan skips it whole.
	for i := 0; i+minHexRun <= len(text); {
		if !isHex[text[i+minHexRun-1]] {
			i += minHexRun
			continue
		}
		k := i + minHexRun - 1
		for k > i && isHex[text[k-1]] {
			k--
		}
		if k > i {
			i = k // text[k-1] is not a digit
			continue
		}
		j := i + minHexRun
		for j < len(text) && isHex[text[j]] {
			j++
		}
		for parity := 0; parity <= 1 && j-i-parity >= minHexRun; parity++ {
			n := (j - i - parity) / 2
			v := &view{b: make([]byte, n), from: make([]int32, n), to: make([]int32, n)}
			for k := range n {
				at := i + parity + 2*k
				hi, _ := hexVal(text[at])
				lo, _ := hexVal(text[at+1])
				v.b[k] = hi<<4 | lo
				v.from[k], v.to[k] = int32(at), int32(at+2)
			}
			if !fn(v) {
				return
			}
		}
		i = j + 1
	}
}

// isHex marks the hex digits, either case.
var isHex = func() (t [256]bool) {
	for c := range 256 {
		_, t[c] = hexVal(byte(c))
	}
	return t
}()
