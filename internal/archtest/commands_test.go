package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cdkd-action/cdkd-action/internal/app"
)

// tableFile is the one table of commands: an entry there is everything
// the rest of the code reads about a command.
const tableFile = "internal/app/commands.go"

// commandPackages are the command packages: each command of the table is
// the package of its name under internal/app.
func commandPackages() []string {
	var out []string
	for _, c := range app.Commands().Names() {
		out = append(out, "internal/app/"+string(c))
	}
	return out
}

// A command is registered in the table only. Outside it, no code lists
// commands: no map keyed by config.Command, no literal list of commands,
// and no switch, condition or else-if chain naming two or more of
// config's Command constants. A new command is then one entry in the table
// plus its own package; a second list would have to be kept in step by
// hand, and the one a new command forgets fails at run time.
func TestCommandsAreRegisteredInTheTableOnly(t *testing.T) {
	root := moduleRoot(t)
	consts := commandConstants(t, root)
	fset := token.NewFileSet()
	err := eachGoFile(root, parser.PackageClauseOnly, func(path, _ string, _ *ast.File) error {
		rel, _ := filepath.Rel(root, path)
		if filepath.ToSlash(rel) == tableFile {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		for _, v := range commandListings(fset, f, consts) {
			t.Errorf("%s:%d: %s: a command is registered in %s only (one entry: its name, inputs, help, needs), which the rest of the code reads",
				filepath.ToSlash(rel), v.line, v.what, tableFile)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The rule holds: each listing it must catch is caught, and a single
// command named on its own is not a listing.
func TestCommandListingsAreFound(t *testing.T) {
	consts := map[string]bool{"CommandDiff": true, "CommandDrift": true}
	for _, tc := range []struct {
		name, src string
		found     bool
	}{
		{"a map keyed by command", `var m = map[config.Command]string{}`, true},
		{"a list of commands", `var l = []config.Command{config.CommandDiff}`, true},
		{"a list's type", `func f() []config.Command { return make([]config.Command, 0) }`, false},
		{"a switch over commands", `func f(c config.Command) { switch c { case config.CommandDiff: case config.CommandDrift: } }`, true},
		{"a case of two", `func f(c config.Command) { switch c { case config.CommandDiff, config.CommandDrift: } }`, true},
		{"a condition of two", `func f(c config.Command) bool { return c == config.CommandDiff || c == config.CommandDrift }`, true},
		{"an else-if chain", `func f(c config.Command) { if c == config.CommandDiff { } else if c == config.CommandDrift { } }`, true},
		{"in package config", `func f(c Command) bool { return c == CommandDiff || c == CommandDrift }`, true},
		{"one command", `func f(c config.Command) bool { return c == config.CommandDiff && true }`, false},
		{"two separate conditions", `func f(c config.Command) { if c == config.CommandDiff { }; if c == config.CommandDrift { } }`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(commandListings(fset, f, consts)) > 0; got != tc.found {
				t.Errorf("found a listing: %v, want %v", got, tc.found)
			}
		})
	}
}

// commandConstants are the names of config's constants of type Command.
func commandConstants(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := eachGoFile(filepath.Join(root, "internal", "config"), parser.SkipObjectResolution, func(_, _ string, f *ast.File) error {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				if v := s.(*ast.ValueSpec); isCommandType(v.Type) {
					for _, n := range v.Names {
						out[n.Name] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("internal/config declares no constant of type Command: the rule would hold for nothing")
	}
	return out
}

// isCommandType: the expression is config.Command (or Command, inside
// config).
func isCommandType(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "Command"
	case *ast.SelectorExpr:
		return x.Sel.Name == "Command" && isIdent(x.X, "config")
	}
	return false
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

type listing struct {
	line int
	what string
}

// commandListings finds the places in f that list commands (see
// TestCommandsAreRegisteredInTheTableOnly). Constant declarations are
// where the names are given, not a listing.
func commandListings(fset *token.FileSet, f *ast.File, consts map[string]bool) []listing {
	var out []listing
	found := func(n ast.Node, what string) bool {
		out = append(out, listing{line: fset.Position(n.Pos()).Line, what: what})
		return false // one finding per listing, not one per part of it
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.MapType:
				if isCommandType(x.Key) {
					return found(n, "a map keyed by command")
				}
			case *ast.SwitchStmt:
				if named := namedCommands(x, consts); len(named) > 1 {
					return found(n, "a switch over the commands "+strings.Join(named, ", "))
				}
			case *ast.IfStmt:
				var conds []ast.Node
				for s := ast.Stmt(x); s != nil; {
					i, ok := s.(*ast.IfStmt)
					if !ok {
						break
					}
					conds = append(conds, i.Cond)
					s = i.Else
				}
				if named := namedCommands(&ast.BlockStmt{List: wrap(conds)}, consts); len(named) > 1 {
					return found(n, "a condition on the commands "+strings.Join(named, ", "))
				}
			case *ast.BinaryExpr:
				if named := namedCommands(x, consts); len(named) > 1 {
					return found(n, "a condition on the commands "+strings.Join(named, ", "))
				}
			case *ast.CompositeLit:
				if a, ok := x.Type.(*ast.ArrayType); ok && isCommandType(a.Elt) && len(x.Elts) > 0 {
					return found(n, "a list of commands")
				}
				if named := namedCommands(x, consts); len(named) > 1 {
					return found(n, "a literal naming the commands "+strings.Join(named, ", "))
				}
			}
			return true
		})
	}
	return out
}

// wrap makes expressions statements, so that one walk covers them all.
func wrap(nodes []ast.Node) []ast.Stmt {
	var out []ast.Stmt
	for _, n := range nodes {
		if e, ok := n.(ast.Expr); ok {
			out = append(out, &ast.ExprStmt{X: e})
		}
	}
	return out
}

// namedCommands are the distinct Command constants named inside n, in
// order, skipping the bodies of a switch's cases.
func namedCommands(n ast.Node, consts map[string]bool) []string {
	var out []string
	ast.Inspect(n, func(m ast.Node) bool {
		switch x := m.(type) {
		case *ast.CaseClause:
			for _, e := range x.List {
				out = append(out, namedCommands(e, consts)...)
			}
			return false
		case *ast.Ident:
			if consts[x.Name] && !slices.Contains(out, x.Name) {
				out = append(out, x.Name)
			}
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}
