package security

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// template reads a synthesized test template's resources.
func template(t *testing.T, name string) map[string]struct {
	Type       string
	Properties map[string]json.RawMessage
} {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".template.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &tpl); err != nil {
		t.Fatal(err)
	}
	return tpl.Resources
}

// created is a resource of template name as a CREATE.
func created(t *testing.T, name, id string) Resource {
	t.Helper()
	r, ok := template(t, name)[id]
	if !ok {
		t.Fatalf("%s has no %s", name, id)
	}
	return Resource{Stack: "App", Account: "123456789012", LogicalID: id, Type: r.Type, New: r.Properties}
}

// updated is resource id from V1 to V2 as cdkd's diff gives it: the
// changed top-level properties only (plus, for a whole-resource type, the
// unchanged ones from the template).
func updated(t *testing.T, id string) Resource {
	t.Helper()
	o, n := template(t, "V1")[id], template(t, "V2")[id]
	return update(id, o.Type, o.Properties, n.Properties)
}

func update(id, typ string, o, n map[string]json.RawMessage) Resource {
	r := Resource{Stack: "App", Account: "123456789012", LogicalID: id, Type: typ, Old: map[string]json.RawMessage{}, New: map[string]json.RawMessage{}}
	for k, v := range o {
		if w, ok := n[k]; !ok || string(w) != string(v) || WholeResource(typ) {
			r.Old[k] = v
		}
	}
	for k, v := range n {
		if w, ok := o[k]; !ok || string(w) != string(v) || WholeResource(typ) {
			r.New[k] = v
		}
	}
	return r
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func props(kv ...string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = raw(kv[i+1])
	}
	return m
}

// row is a change reduced to what a reviewer reads in one line.
type row struct {
	Op     Op
	Kind   Kind
	What   string
	Status Status
	Find   []Finding
}

func rows(cs []Change) []row {
	var out []row
	for _, c := range cs {
		out = append(out, row{c.Op, c.Kind, Describe(c), c.Status, c.Findings})
	}
	return out
}
