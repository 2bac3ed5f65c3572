package archtest

import (
	"go/ast"
	"go/parser"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// maxMethods bounds the methods of one type: a type with more is doing the
// work of several (app's Env once had 86, most of them its embedded parts'),
// and its parts should be types of their own, reached by named fields.
const maxMethods = 30

// testDoubles are the packages of stand-ins for the world the tests run
// against: a fake serves one handler per endpoint of the API it fakes, so
// its size follows that API's, not this project's design.
var testDoubles = []string{"internal/github/githubtest", "internal/cdkd/cdkdtest", "internal/cdkd/cdkdstub"}

// TestNoTypeHasTooManyMethods counts, for every type of the module (test
// doubles aside), the methods declared on it and those it gets by
// embedding a type of the module (an embedded type of another module, such
// as sync.Mutex, is not counted: its methods are not this project's to
// split).
func TestNoTypeHasTooManyMethods(t *testing.T) {
	types := loadMethodTypes(t, moduleRoot(t))
	if len(types) == 0 {
		t.Fatal("no type with methods found: the walk of the module is broken")
	}
	for _, key := range slices.Sorted(maps.Keys(types)) {
		if dir, _, _ := strings.Cut(key, "."); anyUnder(dir, testDoubles) {
			continue
		}
		if n := len(methodSet(types, key, map[string]bool{})); n > maxMethods {
			t.Errorf("%s has %d methods (its own and those it embeds), more than %d: give its parts types of their own, reached through named fields", key, n, maxMethods)
		}
	}
}

// typeInfo is what the count needs of one type: its methods, and the
// types it embeds (as "dir.Name" keys, like its own).
type typeInfo struct {
	methods []string
	embeds  []string
}

// loadMethodTypes reads every non-test Go file of the module and returns its
// types by "package-dir.TypeName".
func loadMethodTypes(t *testing.T, root string) map[string]*typeInfo {
	t.Helper()
	mod := modulePath(t, root)
	types := map[string]*typeInfo{}
	get := func(key string) *typeInfo {
		if types[key] == nil {
			types[key] = &typeInfo{}
		}
		return types[key]
	}
	err := eachGoFile(root, parser.SkipObjectResolution, func(_, dir string, f *ast.File) error {
		imports := moduleImports(f, mod)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil || len(decl.Recv.List) == 0 {
					continue
				}
				if name := typeName(decl.Recv.List[0].Type); name != "" {
					info := get(dir + "." + name)
					info.methods = append(info.methods, decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						if len(field.Names) > 0 {
							continue
						}
						if key := embeddedKey(field.Type, dir, imports); key != "" {
							info := get(dir + "." + ts.Name.Name)
							info.embeds = append(info.embeds, key)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return types
}

// moduleImports maps the names a file imports packages of the module by to
// their directories relative to the module root.
func moduleImports(f *ast.File, mod string) map[string]string {
	out := map[string]string{}
	for _, spec := range f.Imports {
		imp, err := strconv.Unquote(spec.Path.Value)
		if err != nil || !strings.HasPrefix(imp, mod+"/") {
			continue
		}
		dir := strings.TrimPrefix(imp, mod+"/")
		name := dir[strings.LastIndex(dir, "/")+1:]
		if spec.Name != nil {
			name = spec.Name.Name
		}
		out[name] = dir
	}
	return out
}

// typeName is the name of a receiver's type: T, *T, T[P] or *T[P].
func typeName(expr ast.Expr) string {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// embeddedKey is the key of an embedded type of the module ("" for one of
// another module).
func embeddedKey(expr ast.Expr, dir string, imports map[string]string) string {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return embeddedKey(e.X, dir, imports)
	case *ast.IndexExpr:
		return embeddedKey(e.X, dir, imports)
	case *ast.IndexListExpr:
		return embeddedKey(e.X, dir, imports)
	case *ast.Ident:
		return dir + "." + e.Name
	case *ast.SelectorExpr:
		if pkg, ok := e.X.(*ast.Ident); ok {
			if d, ok := imports[pkg.Name]; ok {
				return d + "." + e.Sel.Name
			}
		}
	}
	return ""
}

// methodSet is the names of key's methods, its own and its embedded
// types', each once.
func methodSet(types map[string]*typeInfo, key string, seen map[string]bool) map[string]bool {
	out := map[string]bool{}
	info, ok := types[key]
	if !ok || seen[key] {
		return out
	}
	seen[key] = true
	for _, m := range info.methods {
		out[m] = true
	}
	for _, e := range info.embeds {
		for m := range methodSet(types, e, seen) {
			out[m] = true
		}
	}
	return out
}
