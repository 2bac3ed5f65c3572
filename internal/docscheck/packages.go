package docscheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// layoutDoc and layoutSection are where the package layout is described.
const (
	layoutDoc     = "docs/architecture.md"
	layoutSection = "Package layout"
)

// PackagesNamed checks that the package layout of docs/architecture.md
// names every package of the module as `path` (the package at the module
// root by its package name): a newcomer looks a package up there.
func PackagesNamed(root string) ([]Problem, error) {
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(layoutDoc)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", layoutDoc, err)
	}
	section, ok := section(string(text), layoutSection)
	if !ok {
		return []Problem{{File: layoutDoc, Msg: "has no section " + layoutSection}}, nil
	}
	pkgs, err := Packages(root)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, p := range pkgs {
		if !strings.Contains(section, "`"+p+"`") {
			problems = append(problems, Problem{File: layoutDoc, Msg: fmt.Sprintf("its %s does not name the package `%s`", layoutSection, p)})
		}
	}
	return problems, nil
}

// section is the text under the second-level heading "## name", up to
// the next second-level heading.
func section(doc, name string) (string, bool) {
	_, rest, ok := strings.Cut(doc, "\n## "+name+"\n")
	if !ok {
		return "", false
	}
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest, true
}

// Packages lists the module's packages under root, slash-separated and
// relative to it; the package at the root is named by its package clause.
// Test data, node_modules, hidden folders and nested modules (tools/) are
// not the module's.
func Packages(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := d.Name()
		if rel != "." {
			if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		pkg, err := packageName(p)
		if err != nil || pkg == "" {
			return err
		}
		if rel == "." {
			out = append(out, pkg)
		} else {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the module's packages: %w", err)
	}
	return out, nil
}

// packageName is the package clause of dir's first non-test Go file, ""
// when it has none.
func packageName(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err != nil {
			return "", fmt.Errorf("read the package clause of %s: %w", filepath.Join(dir, n), err)
		}
		return f.Name.Name, nil
	}
	return "", nil
}
