//go:build cdkdactione2e

package fingerprint

// The end-to-end tests that need a process of the action (signals, peak
// memory) build the binary with the cdkdactione2e tag. The in-process
// tests pass the same cheap parameters through app.Deps.FingerprintParams;
// the binary must agree with them (a deploy it runs checks the digest of a
// review made in-process), and at OWASP's parameters the hashing would
// dominate those tests. A binary built without the tag (every release,
// every image) never compiles this file, so it has no such knob. Each fingerprint records its parameters, so the tests still
// exercise recording, comparing and merging as a release does.
func init() {
	DefaultParams.MemoryKiB, DefaultParams.Time = 64, 1
}
