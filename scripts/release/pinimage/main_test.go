package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestPinTheRepositorysActionYML(t *testing.T) {
	orig, err := os.ReadFile("../../../action.yml")
	assert.NilError(t, err)
	got, err := Pin(orig, "ghcr.io/cdkd-action/cdkd-action", digest)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(got), "\n  image: docker://ghcr.io/cdkd-action/cdkd-action@"+digest+"\n"))
	// One line changed, everything else byte for byte.
	a, b := strings.Split(string(orig), "\n"), strings.Split(string(got), "\n")
	assert.Equal(t, len(a), len(b))
	changed := 0
	for i := range a {
		if a[i] != b[i] {
			changed++
			assert.Equal(t, strings.TrimSpace(a[i]), "image: Dockerfile")
		}
	}
	assert.Equal(t, changed, 1)
}

func TestPinRejects(t *testing.T) {
	yml := []byte("name: x\nruns:\n  using: docker\n  image: Dockerfile\n")
	for _, tc := range []struct{ name, image, digest, want string }{
		{"short digest", "ghcr.io/o/cdkd-action", "sha256:abc", "digest: expected"},
		{"tag, not digest", "ghcr.io/o/cdkd-action", "v1.2.3", "digest: expected"},
		{"upper-case owner", "ghcr.io/Owner/cdkd-action", digest, "image: expected a lower-case"},
		{"image with a tag", "ghcr.io/o/cdkd-action:1.2.3", digest, "image: expected"},
		{"another registry", "docker.io/o/cdkd-action", digest, "image: expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Pin(yml, tc.image, tc.digest)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := Pin([]byte("name: x\nruns:\n  using: node20\n  main: index.js\n"), "ghcr.io/o/cdkd-action", digest)
	assert.ErrorContains(t, err, "no image line")
	// An image: line outside runs: (here in a description) is left alone.
	got, err := Pin([]byte("inputs:\n  x:\n    image: keep\nruns:\n  using: docker\n  image: Dockerfile\n"), "ghcr.io/o/cdkd-action", digest)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(got), "    image: keep\n"))
}

// The release workflow builds and signs what users run: every action it
// uses is pinned to a commit (a tag can be moved), with the version in a
// comment for Dependabot and for people.
func TestReleaseWorkflowPinsEveryActionByCommit(t *testing.T) {
	b, err := os.ReadFile("../../../.github/workflows/release.yml")
	assert.NilError(t, err)
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		_, ref, ok := strings.Cut(line, "uses: ")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		n++
		assert.Assert(t, pinned.MatchString(strings.TrimSpace(ref)), "not pinned by commit: %s", strings.TrimSpace(line))
	}
	assert.Assert(t, n > 0, "release.yml uses no action?")
}
