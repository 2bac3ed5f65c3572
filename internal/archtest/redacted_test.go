package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A publish target must not be handed text the redactor did not produce:
// every text in what the Publisher gives a target (the View, the results
// of the callbacks a target calls, the arguments of a target's methods) is
// a redacted.Text, whose only constructor runs the redactor. The plain
// strings that remain are words the action chose or markers that must not
// be redacted, each named here with why; a new one fails this test until
// it is redacted or named.
var plainText = map[string]string{
	"publish.View.Kind":                   "the report's kind (diff, drift, deploy), a word the command chose",
	"publish.View.Outputs[key]":           "a step output's name, chosen by the command",
	"publish.CheckRunView.HeadSHA":        "a commit id",
	"publish.CheckRunView.Conclusion":     "one of GitHub's conclusion words",
	"publish.CheckRunView.ExternalID()":   "our review record (a digest and ids): redacting a hex-like short secret in it would make the deploy refuse its own review",
	"publish.IssueView.Kind":              "the issue's kind, a word the command chose; the issue is found by it",
	"publish.IssueView.Label":             "the label input the issue is found by; its hidden header redacts it when written",
	"publish.IssueView.What":              "names the issue in the log (\"drift tracking issue\"); every log line is redacted",
	"publish.DeploymentView.State":        "success or failure",
	"publish.RequiredCheck.Conclude()[0]": "one of GitHub's conclusion words",
	"publish.DeploySection.Planned(p)":    "writes nothing: says what Publish will write, redacted, for the check run's record",
}

// plainTypes are named types that hold strings and may reach a target.
var plainTypes = map[string]string{
	"marker.Header":     "our hidden header: hashes, ids and words of ours; prcomment.Redact redacts its free text (label, notes) as the body is built",
	"github.IssueState": "open or closed",
}

func TestTargetsReceiveOnlyRedactedText(t *testing.T) {
	pkg := loadTypes(t, "internal/publish")
	target, ok := pkg.Scope().Lookup("Target").Type().Underlying().(*types.Interface)
	if !ok {
		t.Fatal("publish.Target is not an interface")
	}
	var publish *types.Func
	for m := range target.Methods() {
		if m.Name() == "Publish" {
			publish = m
		}
	}
	if publish == nil {
		t.Fatal("publish.Target has no Publish method")
	}
	params := publish.Type().(*types.Signature).Params()
	if params.Len() != 4 {
		t.Fatalf("publish.Target.Publish takes %d parameters; this test knows (ctx, pub, view, written)", params.Len())
	}
	var found []string
	shape(params.At(2).Type(), "publish.View", map[types.Type]bool{}, &found)

	// Every target's methods and callbacks, the ones a caller hands text
	// through (Summary.Write, Deployment.Start, RequiredCheck.Conclude).
	targets := 0
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		ptr := types.NewPointer(tn.Type())
		if !types.Implements(ptr, target) && !types.Implements(tn.Type(), target) {
			continue
		}
		targets++
		ms := types.NewMethodSet(ptr)
		for m := range ms.Methods() {
			fn := m.Obj().(*types.Func)
			if !fn.Exported() || fn.Name() == "Publish" || fn.Name() == "Policy" {
				continue
			}
			sig := fn.Type().(*types.Signature)
			for p := range sig.Params().Variables() {
				shape(p.Type(), "publish."+name+"."+fn.Name()+"("+p.Name()+")", map[types.Type]bool{}, &found)
			}
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				if sig, ok := f.Type().Underlying().(*types.Signature); ok && f.Exported() {
					shape(sig, "publish."+name+"."+f.Name(), map[types.Type]bool{}, &found)
				}
			}
		}
	}
	if targets < 5 {
		t.Errorf("found %d publish targets; a renamed Target would let every target escape this test", targets)
	}
	for _, f := range found {
		t.Errorf("%s is plain text a publish target receives: make it a redacted.Text (made by the Publisher's redactor), or name it in plainText with why it is no secret", f)
	}
}

// The shape check itself finds plain text: the Publication a command
// builds holds it, which is why targets receive a View.
func TestShapeFindsPlainText(t *testing.T) {
	pkg := loadTypes(t, "internal/publish")
	var found []string
	shape(pkg.Scope().Lookup("Publication").Type(), "publish.Publication", map[types.Type]bool{}, &found)
	for _, want := range []string{"publish.Publication.Render()", "publish.CheckRunFields.Name", "publish.Publication.Outputs[value]"} {
		if !slices.Contains(found, want) {
			t.Errorf("the shape check does not find %s in publish.Publication (found %v)", want, found)
		}
	}
}

// Only the redactor makes a redacted.Text: the type has no exported field,
// so no other package can write a literal of it, and its only constructors
// take a redactor or other Texts.
func TestOnlyTheRedactorMakesText(t *testing.T) {
	pkg := loadTypes(t, "internal/redacted")
	text := pkg.Scope().Lookup("Text")
	st, ok := text.Type().Underlying().(*types.Struct)
	if !ok {
		t.Fatal("redacted.Text is not a struct: a conversion from string would make one")
	}
	for f := range st.Fields() {
		if f.Exported() {
			t.Errorf("redacted.Text has the exported field %s: any package could fill it", f.Name())
		}
	}
	redactor := pkg.Scope().Lookup("Redactor").Type()
	for _, name := range pkg.Scope().Names() {
		fn, ok := pkg.Scope().Lookup(name).(*types.Func)
		if !ok {
			continue
		}
		sig := fn.Type().(*types.Signature)
		makesText := false
		for r := range sig.Results().Variables() {
			makesText = makesText || types.Identical(r.Type(), text.Type())
		}
		if !makesText {
			continue
		}
		takesRedactor, takesString := false, false
		for p := range sig.Params().Variables() {
			pt := p.Type()
			if s, ok := pt.(*types.Slice); ok && sig.Variadic() {
				pt = s.Elem()
			}
			takesRedactor = takesRedactor || types.Identical(pt, redactor)
			takesString = takesString || !types.Identical(pt, text.Type()) && types.Identical(pt.Underlying(), types.Typ[types.String])
		}
		if takesString && !takesRedactor {
			t.Errorf("redacted.%s makes a Text from a string without a redactor", name)
		}
	}
}

// shape walks what a target receives through t (fields, elements, the
// results of functions it calls) and appends to found each plain text:
// a string or bytes that is neither a redacted.Text nor named in
// plainText or plainTypes.
func shape(t types.Type, at string, seen map[types.Type]bool, found *[]string) {
	if seen[t] || plainText[at] != "" {
		return
	}
	seen[t] = true
	defer delete(seen, t) // the same type at another place is checked there too
	if n, ok := t.(*types.Named); ok {
		name := n.Obj().Name()
		if n.Obj().Pkg() != nil {
			name = n.Obj().Pkg().Name() + "." + name
		}
		if name == "redacted.Text" || plainTypes[name] != "" {
			return
		}
		if n.Obj().Pkg() != nil && n.Obj().Pkg().Name() == "publish" {
			if _, isStruct := n.Underlying().(*types.Struct); isStruct {
				at = name
			}
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			*found = append(*found, at)
		}
	case *types.Pointer:
		shape(u.Elem(), at, seen, found)
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			*found = append(*found, at)
			return
		}
		shape(u.Elem(), at, seen, found)
	case *types.Array:
		shape(u.Elem(), at, seen, found)
	case *types.Map:
		shape(u.Key(), at+"[key]", seen, found)
		shape(u.Elem(), at+"[value]", seen, found)
	case *types.Struct:
		for f := range u.Fields() {
			shape(f.Type(), at+"."+f.Name(), seen, found)
		}
	case *types.Signature:
		// What a function gives the target is its results; its
		// parameters are what the target gives.
		for i := range u.Results().Len() {
			suffix := "()"
			if u.Results().Len() > 1 {
				suffix = fmt.Sprintf("()[%d]", i)
			}
			shape(u.Results().At(i).Type(), at+suffix, seen, found)
		}
	}
	// Interfaces (io.Writer, error) are behaviour the target calls, not
	// text it is handed.
}

// loadTypes type-checks nothing itself: it reads the compiler's export data
// of the module package at dir (and of its imports), as `go list -export`
// builds them.
func loadTypes(t *testing.T, dir string) *types.Package {
	t.Helper()
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./"+dir)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export ./%s: %v\n%s", dir, err, stderr.String())
	}
	exports := map[string]string{}
	var last string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
		last = path
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	pkg, err := imp.Import(last) // -deps lists the package itself last
	if err != nil {
		t.Fatalf("read the types of %s: %v", last, err)
	}
	return pkg
}
