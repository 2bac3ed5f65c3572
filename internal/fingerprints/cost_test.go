package fingerprints

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/cdkd-action/cdkd-action/internal/secrets/fingerprint"
)

// Hashing that takes more than a few seconds is said first: how many
// distinct values, and about how long. A short one is silent. Nothing is
// hashed here: the notice is made before All starts.
func TestLongHashingIsSaidFirst(t *testing.T) {
	key := sha256.Sum256([]byte("k"))
	h, err := fingerprint.NewHasher(fingerprint.Options{Key: key[:], Parallel: 1})
	assert.NilError(t, err)
	items := func(distinct, positions int) []fingerprint.Item {
		var out []fingerprint.Item
		for i := range positions {
			out = append(out, fingerprint.Item{
				Position: fingerprint.Position{Stack: "S", LogicalID: fmt.Sprintf("P%d", i), Path: "Value"},
				Value:    fmt.Sprintf("value-%d", i%distinct)})
		}
		return out
	}
	say := func(h *fingerprint.Hasher, items []fingerprint.Item) string {
		var said string
		f := &Run{Info: func(msg string) { said += msg + "\n" }}
		f.SayHashing(h, items)
		return said
	}
	assert.Equal(t, say(h, items(100, 1000)), "", "100 distinct values: about 2.4 s")
	var none *fingerprint.Hasher // no key: the diff hashes nothing
	assert.Equal(t, say(none, items(1000, 1000)), "")
	assert.Equal(t, say(h, items(1000, 1000)), "Fingerprinting 1000 distinct hidden values: one Argon2id hash each (about 24 ms of CPU), about 24s with 1 core hashing.\n")
}
