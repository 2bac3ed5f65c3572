package security

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

const (
	readsStart = "<!-- security reads: generated from internal/security by go test ./internal/security -update -->\n"
	readsEnd   = "<!-- end of security reads -->\n"
)

// docs/security.md lists every resource type and property the table
// reads, exactly as the package reads them: the scrutinized table and the
// watched properties.
func TestDocsListWhatIsRead(t *testing.T) {
	const path = "../../docs/security.md"
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	doc := string(b)
	start, end := strings.Index(doc, readsStart), strings.Index(doc, readsEnd)
	assert.Assert(t, start >= 0 && end > start, "docs/security.md has no generated table of what is read (%q ... %q)", readsStart, readsEnd)
	want := readsTable()
	if golden.FlagUpdate() {
		assert.NilError(t, os.WriteFile(path, []byte(doc[:start+len(readsStart)]+want+doc[end:]), 0o644))
		return
	}
	assert.Equal(t, doc[start+len(readsStart):end], want, "docs/security.md's table of what is read differs from internal/security: go test ./internal/security -update")
}

func readsTable() string {
	types := slices.Collect(maps.Keys(scrutinized().Types))
	for typ := range watched {
		if !slices.Contains(types, typ) {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	var b strings.Builder
	b.WriteString("| resource type | what is read |\n|---|---|\n")
	for _, typ := range types {
		e := scrutinized().Types[typ]
		var read []string
		if wholeResource(e.Kind) {
			read = append(read, "the whole resource (one element)")
		}
		for _, p := range slices.Sorted(maps.Keys(e.Properties)) {
			read = append(read, "`"+p+"`")
		}
		for _, p := range slices.Sorted(maps.Keys(watched[typ])) {
			if _, ok := e.Properties[p]; !ok {
				read = append(read, "`"+p+"` (finding)")
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", typ, strings.Join(read, ", "))
	}
	return b.String()
}
