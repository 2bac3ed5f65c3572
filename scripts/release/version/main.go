// Command version checks a release version and prints what the release
// workflow needs, one name=value per line (append it to $GITHUB_OUTPUT):
// the full tag, the major and minor tags that move, and the -ldflags that
// stamp the version into the binary (`cdkd-action --version`). With
// -changelog it refuses a version CHANGELOG.md has no section for, since
// that section is the release notes, and -notes FILE writes the section
// there.
//
//	go run ./scripts/release/version -changelog CHANGELOG.md 1.2.3 >> "$GITHUB_OUTPUT"
package main

import (
	"flag"
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
	MinorTag   string // v1.2: moved to each release of that minor version
	Prerelease bool   // a prerelease moves neither the major nor the minor tag
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
		MinorTag:   "v" + m[1] + "." + m[2],
		Prerelease: m[4] != "",
		LDFlags:    "-s -w -X main.version=" + v,
	}, nil
}

// Lines is the GITHUB_OUTPUT form.
func (r Release) Lines() string {
	return fmt.Sprintf("version=%s\ntag=%s\nmajor-tag=%s\nminor-tag=%s\nprerelease=%t\nldflags=%s\n", r.Version, r.Tag, r.MajorTag, r.MinorTag, r.Prerelease, r.LDFlags)
}

// heading matches a version's CHANGELOG heading: "## [1.2.3]" or
// "## 1.2.3", then the end of the line or a space (" - 2026-01-02").
func heading(version string) *regexp.Regexp {
	return regexp.MustCompile(`^## \[?` + regexp.QuoteMeta(version) + `\]?( |$)`)
}

// Notes is the CHANGELOG section of version, its heading left out; an
// error when there is none, or it says nothing: a release without notes
// would publish a version nobody can read the changes of.
func Notes(changelog, version string) (string, error) {
	var out []string
	in := false
	for _, line := range strings.Split(changelog, "\n") {
		switch {
		case heading(version).MatchString(line):
			in = true
		case in && strings.HasPrefix(line, "## "):
			in = false
		case in:
			out = append(out, line)
		}
		if !in && len(out) > 0 {
			break
		}
	}
	notes := strings.TrimSpace(strings.Join(out, "\n"))
	if notes == "" {
		return "", fmt.Errorf("CHANGELOG.md has no section for %s (a heading \"## [%s]\" with the changes under it): move the [Unreleased] entries under one before releasing", version, version)
	}
	return notes + "\n", nil
}

func main() {
	changelog := flag.String("changelog", "", "refuse a version this CHANGELOG has no section for")
	notes := flag.String("notes", "", "write the version's CHANGELOG section to this file (with -changelog)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: version [-changelog CHANGELOG.md [-notes FILE]] MAJOR.MINOR.PATCH")
		os.Exit(2)
	}
	r, err := Parse(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *changelog != "" {
		b, err := os.ReadFile(*changelog)
		if err != nil {
			fmt.Fprintln(os.Stderr, "version:", err)
			os.Exit(1)
		}
		text, err := Notes(string(b), r.Version)
		if err != nil {
			fmt.Fprintln(os.Stderr, "version:", err)
			os.Exit(1)
		}
		if *notes != "" {
			if err := os.WriteFile(*notes, []byte(text), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "version:", err)
				os.Exit(1)
			}
		}
	}
	fmt.Print(r.Lines())
}
