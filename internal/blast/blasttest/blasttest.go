// Package blasttest validates the Mermaid pictures tests produce with the
// real Mermaid parser (tools/mermaid-check, run with Node), as each sink
// writes them: a test hands over the text it got (a comment body after
// redaction, a README) and every ```mermaid block in it is checked.
package blasttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// OutEnv, when set, names a folder every checked picture is also copied
// to (as NAME.mmd and NAME.expect.json), so that another Mermaid version
// can be run over all of them: docs/diff.md says which ones accept them.
const OutEnv = "CDKD_MERMAID_OUT"

// RequireEnv, set to 1 (as .ci/run does after npm ci), makes a missing
// Node or node_modules a failure instead of a skipped step.
const RequireEnv = "CDKD_MERMAID_REQUIRE"

// Expect pins what the parser must read in one picture: its node count
// (-1: any) and labels that must read as plain text.
type Expect struct {
	Vertices int      `json:"vertices"`
	Texts    []string `json:"texts,omitempty"`
}

// Blocks returns the source of every ```mermaid fenced block in md, in
// order, with the indentation of its fence taken off.
func Blocks(md string) []string {
	var out []string
	var cur []string
	indent, in := "", false
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case !in && trimmed == "```mermaid":
			in, indent, cur = true, line[:len(line)-len(trimmed)], nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			out = append(out, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, strings.TrimPrefix(line, indent))
		}
	}
	return out
}

// Check validates every picture in each text (name → sink text) with the
// real parser; expect (may be nil) pins the i-th picture of a text by the
// key "name#i". It is a no-op, logged, when Node or tools/mermaid-check's
// node_modules are missing, unless RequireEnv is set. It returns the
// number of pictures checked.
func Check(t *testing.T, texts map[string]string, expect map[string]Expect) int {
	t.Helper()
	dir := t.TempDir()
	n := 0
	for name, text := range texts {
		for i, src := range Blocks(text) {
			base := filepath.Join(dir, sanitize(name)+"-"+strconv.Itoa(i))
			if err := os.WriteFile(base+".mmd", []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if e, ok := expect[name+"#"+strconv.Itoa(i)]; ok {
				b, _ := json.Marshal(map[string]any{"vertices": e.Vertices, "texts": e.Texts})
				if e.Vertices < 0 {
					b, _ = json.Marshal(map[string]any{"texts": e.Texts})
				}
				if err := os.WriteFile(base+".expect.json", b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			n++
		}
	}
	if n == 0 {
		return 0
	}
	if out := os.Getenv(OutEnv); out != "" {
		copyAll(t, dir, filepath.Join(out, sanitize(t.Name())))
	}
	tool, why := checker()
	if why != "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("the Mermaid parser cannot run (%s): run npm ci in tools/mermaid-check", why)
		}
		t.Logf("%d Mermaid pictures not checked by the real parser: %s (run npm ci in tools/mermaid-check)", n, why)
		return n
	}
	out, err := exec.Command("node", tool, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("the Mermaid parser refuses a picture: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
	return n
}

// Verdicts runs the real parser over each picture source (name → the
// source of one flowchart) and returns what it says of each that it
// refuses (name → its complaints), so that a test can show the checker
// refuses what Mermaid would not render. It skips the test when the
// parser cannot run, unless RequireEnv is set.
func Verdicts(t *testing.T, srcs map[string]string) map[string]string {
	t.Helper()
	tool, why := checker()
	if why != "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("the Mermaid parser cannot run (%s): run npm ci in tools/mermaid-check", why)
		}
		t.Skipf("the Mermaid parser cannot run: %s (run npm ci in tools/mermaid-check)", why)
	}
	dir := t.TempDir()
	for name, src := range srcs {
		if err := os.WriteFile(filepath.Join(dir, sanitize(name)+".mmd"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := exec.Command("node", tool, dir).CombinedOutput()
	got := map[string]string{}
	for line := range strings.Lines(string(out)) {
		for name := range srcs {
			if prefix := filepath.Join(dir, sanitize(name)+".mmd") + ": "; strings.HasPrefix(line, prefix) {
				got[name] += strings.TrimPrefix(line, prefix)
			}
		}
	}
	if !strings.Contains(string(out), "mermaid-check: ") {
		t.Fatalf("the Mermaid parser did not run: %s", out)
	}
	return got
}

// checker finds tools/mermaid-check/check.mjs above the working directory,
// or says why it cannot run.
func checker() (string, string) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", "node is not on PATH"
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err.Error()
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			tool := filepath.Join(dir, "tools", "mermaid-check")
			if _, err := os.Stat(filepath.Join(tool, "node_modules", "mermaid")); err != nil {
				return "", "tools/mermaid-check/node_modules is missing"
			}
			return filepath.Join(tool, "check.mjs"), ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "no go.mod above the working directory"
		}
		dir = parent
	}
}

func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// copyAll copies the files of dir into out.
func copyAll(t *testing.T, dir, out string) {
	t.Helper()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(out, e.Name()), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
