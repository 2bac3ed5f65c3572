// Command version checks a release version and prints what the release
// workflow needs, one name=value per line (append it to $GITHUB_OUTPUT):
// the full tag, the major tag that moves, and the -ldflags that stamp the
// version into the binary (`cdkd-action --version`).
//
//	go run ./scripts/release/version 1.2.3 >> "$GITHUB_OUTPUT"
package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

// Release is what one version makes.
type Release struct {
	Version    string // 1.2.3
	Tag        string // v1.2.3: created once, never moved
	MajorTag   string // v1: moved to each release of that major version
	Prerelease bool   // a prerelease does not move the major tag
	LDFlags    string // stamps the version into cmd/cdkd-action
}

// Parse accepts 1.2.3 or v1.2.3 (and prereleases such as 1.2.3-rc.1).
func Parse(v string) (Release, error) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	m := semver.FindStringSubmatch(v)
	if m == nil {
		return Release{}, fmt.Errorf("version: expected MAJOR.MINOR.PATCH such as 1.2.3, got %q", v)
	}
	return Release{
		Version:    v,
		Tag:        "v" + v,
		MajorTag:   "v" + m[1],
		Prerelease: m[4] != "",
		LDFlags:    "-s -w -X main.version=" + v,
	}, nil
}

// Lines is the GITHUB_OUTPUT form.
func (r Release) Lines() string {
	return fmt.Sprintf("version=%s\ntag=%s\nmajor-tag=%s\nprerelease=%t\nldflags=%s\n", r.Version, r.Tag, r.MajorTag, r.Prerelease, r.LDFlags)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: version MAJOR.MINOR.PATCH")
		os.Exit(2)
	}
	r, err := Parse(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(r.Lines())
}
