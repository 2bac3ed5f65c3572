// Command pinimage rewrites action.yml for a release commit: runs.image
// becomes the prebuilt image pinned by digest, so a job pulls it instead of
// building the Dockerfile. main keeps `image: Dockerfile`.
//
//	go run ./scripts/release/pinimage -file action.yml -image ghcr.io/OWNER/cdkd-action -digest sha256:...
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	// GHCR names are lower case; a tag or digest is not part of the name.
	imagePattern = regexp.MustCompile(`^ghcr\.io/[a-z0-9]([a-z0-9._-]*[a-z0-9])?/[a-z0-9]([a-z0-9._/-]*[a-z0-9])?$`)
)

// Pin returns action.yml with runs.image set to docker://image@digest. Only
// that line changes, so the release commit's diff is one line.
func Pin(actionYML []byte, image, digest string) ([]byte, error) {
	if !digestPattern.MatchString(digest) {
		return nil, fmt.Errorf("digest: expected sha256: and 64 lower-case hex digits, got %q", digest)
	}
	if !imagePattern.MatchString(image) {
		return nil, fmt.Errorf("image: expected a lower-case ghcr.io/OWNER/NAME without tag or digest, got %q", image)
	}
	lines := bytes.Split(actionYML, []byte("\n"))
	inRuns, done := false, false
	for i, l := range lines {
		s := string(l)
		if len(s) > 0 && s[0] != ' ' && s[0] != '#' {
			inRuns = strings.HasPrefix(s, "runs:")
			continue
		}
		if inRuns && strings.HasPrefix(strings.TrimSpace(s), "image:") {
			if done {
				return nil, errors.New("runs: more than one image line")
			}
			indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
			lines[i] = []byte(fmt.Sprintf("%simage: docker://%s@%s", indent, image, digest))
			done = true
		}
	}
	if !done {
		return nil, errors.New("runs: no image line to pin")
	}
	out := bytes.Join(lines, []byte("\n"))
	var check struct {
		Runs struct {
			Using string `yaml:"using"`
			Image string `yaml:"image"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(out, &check); err != nil {
		return nil, fmt.Errorf("the pinned action.yml does not parse: %w", err)
	}
	if want := "docker://" + image + "@" + digest; check.Runs.Using != "docker" || check.Runs.Image != want {
		return nil, fmt.Errorf("the pinned action.yml has runs.using %q and runs.image %q, expected docker and %q", check.Runs.Using, check.Runs.Image, want)
	}
	return out, nil
}

func main() {
	file := flag.String("file", "action.yml", "the action metadata to rewrite in place")
	image := flag.String("image", "", "the image name, ghcr.io/OWNER/cdkd-action")
	digest := flag.String("digest", "", "the pushed manifest's digest, sha256:...")
	flag.Parse()
	b, err := os.ReadFile(*file)
	if err == nil {
		b, err = Pin(b, *image, *digest)
	}
	if err == nil {
		err = os.WriteFile(*file, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinimage:", err)
		os.Exit(1)
	}
}
