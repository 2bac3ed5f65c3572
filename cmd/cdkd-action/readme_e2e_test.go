package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// readmeBlock is one fenced code block of README.md and the line before
// its opening fence (where the markers are).
type readmeBlock struct {
	before string
	lines  []string
}

// readmeBlocks reads README.md's fenced code blocks in order.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	var cur *readmeBlock
	prev := ""
	for _, l := range strings.Split(readFile(t, "../../README.md"), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &readmeBlock{before: prev}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
		prev = l
	}
	assert.Assert(t, cur == nil, "README.md ends inside a code block")
	return blocks
}

// A newcomer deciding whether to adopt the action meets the one command
// that works with nothing but Go first, and it works from a fresh clone:
// the first code block of README.md, under its marker, renders the
// fixture's diff with no AWS, no GitHub and no cdkd.
func TestREADMERunCommandIsFirstAndRuns(t *testing.T) {
	blocks := readmeBlocks(t)
	assert.Assert(t, len(blocks) > 0)
	first := blocks[0]
	assert.Equal(t, first.before, "<!-- run-command -->", "README's first code block is not the run command")
	assert.Assert(t, is.Len(first.lines, 1))
	args, ok := strings.CutPrefix(first.lines[0], "go run ./cmd/cdkd-action ")
	assert.Assert(t, ok, "the run command runs something else: %q", first.lines[0])

	// The run command's paths are relative to a clone's root: run it in a
	// directory that holds the clone's testdata, and nothing else (no
	// cdkd on PATH is needed, no region, no credentials, no GitHub
	// variables).
	dir := t.TempDir()
	assert.NilError(t, os.Symlink(abs(t, "../../testdata"), filepath.Join(dir, "testdata")))
	res := runCLI(t, dir, []string{"PATH=" + t.TempDir(), "AWS_REGION="}, strings.Fields(args)...)
	assert.Equal(t, res.code, 0, res.stderr)
	assert.Assert(t, strings.HasPrefix(res.stdout, "### cdkd diff\n"), res.stdout)
	assert.Assert(t, is.Contains(res.stdout, "**Plan:** 1 to create, 3 to update, 1 to replace, 1 to delete"))
	// A note's code spans are code (GitHub shows "&#96;" as a backtick).
	assert.Assert(t, is.Contains(res.stdout, "> ℹ️ The value of <code>{{resolve:secretsmanager:my-secret:SecretString:password}}</code> is part of the name of <code>SecretNamedQueue</code>"), res.stdout)
	assert.Assert(t, !strings.Contains(res.stdout, "&#96;"), res.stdout)

	// The test command keeps the shape .ci/run's awk reads: the marker,
	// then one ```sh block.
	var test []readmeBlock
	for _, b := range blocks {
		if b.before == "<!-- test-command -->" {
			test = append(test, b)
		}
	}
	assert.Assert(t, is.Len(test, 1), "README.md has one test command")
	assert.DeepEqual(t, test[0].lines, []string{"go test ./..."})
}
