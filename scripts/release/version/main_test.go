package main

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestParse(t *testing.T) {
	r, err := Parse("v1.2.3")
	assert.NilError(t, err)
	assert.DeepEqual(t, r, Release{Version: "1.2.3", Tag: "v1.2.3", MajorTag: "v1", MinorTag: "v1.2", LDFlags: "-s -w -X main.version=1.2.3"})
	assert.Equal(t, r.Lines(), "version=1.2.3\ntag=v1.2.3\nmajor-tag=v1\nminor-tag=v1.2\nprerelease=false\nldflags=-s -w -X main.version=1.2.3\n")

	r, err = Parse("2.0.0-rc.1")
	assert.NilError(t, err)
	assert.Equal(t, r.MajorTag, "v2")
	assert.Equal(t, r.Prerelease, true)

	for _, bad := range []string{"", "1.2", "1.2.3.4", "01.2.3", "latest", "1.2.3; rm -rf /", "1.2.3\nx=y"} {
		_, err := Parse(bad)
		assert.ErrorContains(t, err, "version: expected MAJOR.MINOR.PATCH", "%q", bad)
	}
}

// A version is released only with a CHANGELOG section: it is the
// release's notes.
func TestNotes(t *testing.T) {
	changelog := "# Changelog\n\n## [Unreleased]\n\n- next\n\n## [1.2.3] - 2026-12-01\n\n### Fixed\n- a fix\n\n## [1.2.2]\n\n- older\n\n## [1.3.0]\n"
	notes, err := Notes(changelog, "1.2.3")
	assert.NilError(t, err)
	assert.Equal(t, notes, "### Fixed\n- a fix\n")
	notes, err = Notes(changelog, "1.2.2")
	assert.NilError(t, err)
	assert.Equal(t, notes, "- older\n")
	for _, v := range []string{"1.2.4", "1.3.0", "1.2"} {
		_, err = Notes(changelog, v)
		assert.ErrorContains(t, err, "CHANGELOG.md has no section for "+v, v)
	}
}
