package gate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// Every rule a rule_*.go file declares runs, once: a rule written and not
// registered would silently check nothing.
func TestEveryRuleIsRegistered(t *testing.T) {
	files, err := filepath.Glob("rule_*.go")
	assert.NilError(t, err)
	var declared []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		assert.NilError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "about" {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
				declared = append(declared, id.Name)
			}
		}
	}
	var registered []string
	for _, r := range rules {
		registered = append(registered, strings.TrimPrefix(fmt.Sprintf("%T", r), "gate."))
	}
	slices.Sort(declared)
	slices.Sort(registered)
	assert.DeepEqual(t, registered, declared)
}
