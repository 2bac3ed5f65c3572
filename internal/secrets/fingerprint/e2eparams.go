//go:build cdkdactione2e

package fingerprint

// The end-to-end tests build the binary with the cdkdactione2e tag and run
// it hundreds of times; at OWASP's parameters the Argon2id hashing of every
// masked value would be most of the suite's time. A binary built without
// the tag (every release, every image) never compiles this file, so it has
// no such knob. Each fingerprint records its parameters, so the tests still
// exercise recording, comparing and merging as a release does.
func init() {
	DefaultParams.MemoryKiB, DefaultParams.Time = 64, 1
}
