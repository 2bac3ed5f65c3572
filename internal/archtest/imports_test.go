package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// edges are the packages that talk to the world: cdkd, AWS, the GitHub API,
// the runner's protocol and the sinks that write through them.
var edges = []string{"internal/cdkd", "internal/awsx", "internal/github", "internal/workflow", "internal/publish"}

// all, as a pattern, is every package of the module; "." is its root
// package (action.yml embedded, no code).
const all = "*"

// rule: no package under from (but not under except) may import, directly or
// through other packages of the project, a package under deny (but not
// under allow).
type rule struct {
	from, except, deny, allow []string
	// exceptExactly are packages the rule does not hold for, without the
	// packages below them (except holds for those too).
	exceptExactly []string
	why           string
}

// commands are the command packages, one per command of the table
// (commandPackages); internal/app wires them to the run and dispatches to
// them.
var commands = commandPackages()

var rules = append([]rule{
	{
		from:  []string{"internal/model", "internal/linediff", "internal/config", "internal/marker", "internal/reason"},
		deny:  []string{all},
		allow: []string{"."},
		why:   "the lowest layers (domain types, line diffs, inputs, the hidden header, the failure reasons) import nothing of the project, so everything above can use them",
	},
	{
		from: []string{"internal/reporters", "internal/prcomment", "internal/driftissue", "internal/plan"},
		deny: edges,
		why:  "reporters and the domain types they render only present: they must not depend on an edge (cdkd, AWS, GitHub, the runner protocol, the publisher)",
	},
	{
		from:  []string{"internal/redacted"},
		deny:  []string{all},
		allow: []string{"."},
		why:   "redacted text is a type every layer may hand on (a sink takes only it): it imports nothing of the project",
	},
	{
		from:  []string{"internal/secrets"},
		deny:  []string{all},
		allow: []string{"."},
		why:   "the secrets tree (the redactor, secret-value fingerprints, the runner's masker as the tests model it) reads nothing from the world and imports nothing of the project, its parent included: finding secrets in AWS and the assembly is internal/discover's, above it",
	},
	{
		from: []string{"internal/discover"},
		deny: []string{"internal/github", "internal/cdkd", "internal/publish", "internal/workflow", "internal/reporters", "internal/prcomment"},
		why:  "discovery reads the assembly and AWS into the redactor before anything is printed: it runs no cdkd, writes to no sink and renders nothing",
	},
	{
		from: []string{"internal/reviewstore"},
		deny: []string{"internal/prcomment", "internal/reporters"},
		why:  "the state bucket keeps the domain's reviewed change set (model.ChangeSet), not a comment: the comment's hidden line is internal/prcomment's framing of the same encoding",
	},
	{
		from: []string{"internal/secreteffect", "internal/cfnschema"},
		deny: edges,
		why:  "what a deploy does with a secret is decided from cdkd's diff and the schema table it is given: no edge",
	},
	{
		from: []string{"internal/security"},
		deny: edges,
		why:  "security changes are read from the redacted change set and the values they are given: the caller reads templates and state",
	},
	{
		from: []string{"internal/github"},
		deny: []string{"internal/reporters", "internal/prcomment", "internal/driftissue"},
		why:  "the GitHub client must not depend on rendering; the hidden header it finds comments by is internal/marker",
	},
	{
		from: []string{"internal/gate", "internal/review"}, // review: the gate's review lookup, once extracted
		deny: []string{"internal/github", "internal/awsx"},
		why:  "the deploy gate decides from what it is given; reading GitHub or AWS is the caller's job",
	},
	{
		from:   []string{all},
		except: []string{"internal/app", "cmd"},
		deny:   []string{"internal/app", "cmd"},
		why:    "only internal/app wires the packages together, and only cmd runs it",
	},
	{
		from:          []string{all},
		except:        []string{"cmd"},
		exceptExactly: []string{"internal/app"},
		deny:          commands,
		why:           "only internal/app (and cmd, through it) runs a command: what several packages need of a command is a package of its own",
	},
}, commandRules()...)

// commandRules keep the command packages apart: what two commands share
// is a package of its own (under internal/app, or next to the domain
// package it serves), never one command's package that another imports.
func commandRules() []rule {
	var out []rule
	for _, c := range commands {
		out = append(out, rule{
			from: []string{c},
			deny: slices.DeleteFunc(slices.Clone(commands), func(other string) bool { return other == c }),
			why:  "a command package does not import another command's: share what they both need through a package of its own",
		})
	}
	return out
}

// under reports whether pkg (relative to the module, "." for its root) is
// pattern or below it.
func under(pkg, pattern string) bool {
	return pattern == all || pkg == pattern || strings.HasPrefix(pkg, pattern+"/")
}

func anyUnder(pkg string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return under(pkg, p) })
}

func TestImportRules(t *testing.T) {
	graph := loadGraph(t, moduleRoot(t))
	for _, r := range rules {
		subjects := 0
		for pkg := range graph {
			if !anyUnder(pkg, r.from) || anyUnder(pkg, r.except) || slices.Contains(r.exceptExactly, pkg) {
				continue
			}
			subjects++
			for _, v := range violations(graph, pkg, r) {
				t.Errorf("%s: %s", v, r.why)
			}
		}
		if subjects == 0 {
			t.Errorf("the rule for %q holds for no package: a renamed package would silently escape it", r.from)
		}
	}
}

// violations walks pkg's project imports breadth-first and names each denied
// package it reaches with the chain that reaches it.
func violations(graph map[string][]string, pkg string, r rule) []string {
	via := map[string]string{pkg: ""} // "" ends a chain: no package is named ""
	queue := []string{pkg}
	var out []string
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, imp := range graph[cur] {
			if _, seen := via[imp]; seen {
				continue
			}
			via[imp] = cur
			queue = append(queue, imp)
			if anyUnder(imp, r.deny) && !under(imp, pkg) && !anyUnder(imp, r.allow) {
				out = append(out, chain(via, imp))
			}
		}
	}
	return out
}

func chain(via map[string]string, pkg string) string {
	var path []string
	for p := pkg; p != ""; p = via[p] {
		path = append(path, p)
	}
	slices.Reverse(path)
	return strings.Join(path, " imports ")
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("find the module root from internal/archtest: %v", err)
	}
	return root
}

// loadGraph reads the imports of every non-test Go file in the module (all
// build tags: a rule holds on every platform) and keeps those of the
// project, keyed by the importing package's directory relative to root.
func loadGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	mod := modulePath(t, root)
	graph := map[string][]string{}
	err := eachGoFile(root, parser.ImportsOnly, func(path, pkg string, f *ast.File) error {
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("read the imports of %s: %w", path, err)
			}
			if imp != mod && !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			rel := "."
			if imp != mod {
				rel = strings.TrimPrefix(imp, mod+"/")
			}
			if !slices.Contains(graph[pkg], rel) {
				graph[pkg] = append(graph[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// README's golden-file command must name every package whose tests compare
// with golden files, or `-update` leaves some stale after a change.
func TestREADMENamesEveryGoldenPackage(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "- Golden files:")
	if !ok {
		t.Fatal(`README.md has no "- Golden files:" line under Development`)
	}
	section, _, _ = strings.Cut(section, "\n- ")
	fset := token.NewFileSet()
	named := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("read the imports of %s: %w", path, err)
		}
		for _, spec := range f.Imports {
			if spec.Path.Value != `"gotest.tools/v3/golden"` {
				continue
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			if pkg := "./" + filepath.ToSlash(rel) + "/..."; !named[pkg] && !strings.Contains(section, pkg) {
				named[pkg] = true
				t.Errorf("README's golden-file command does not name %s, whose tests use golden files", pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eachGoFile parses every non-test Go file of the module below root (all
// build tags: a rule holds on every platform) with mode, and hands fn its
// path, its package's directory relative to root, and its syntax.
func eachGoFile(root string, mode parser.Mode, fn func(path, pkg string, f *ast.File) error) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		if d.IsDir() {
			if path != root && (base == "testdata" || base == "vendor" || base == "node_modules" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		return fn(path, filepath.ToSlash(rel), f)
	})
}
