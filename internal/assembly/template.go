package assembly

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// template holds the sections of a CloudFormation template that can print a
// value. Everything is kept as decoded JSON (json.Number for numbers):
// templates are untrusted and any section may have an unexpected shape.
type template struct {
	Parameters map[string]any `json:"Parameters"`
	Resources  map[string]any `json:"Resources"`
	Outputs    map[string]any `json:"Outputs"`

	ids []string // resourceIDs, once sorted
}

// resourceIDs are the resources' logical ids, sorted: a stack's list, its
// trace and its nested stacks each go through them in this order.
func (t *template) resourceIDs() []string {
	if t.ids == nil {
		t.ids = make([]string, 0, len(t.Resources))
		for id := range t.Resources {
			t.ids = append(t.ids, id)
		}
		slices.Sort(t.ids)
	}
	return t.ids
}

// readTemplate reads and decodes the template in path; b are its bytes.
func readTemplate(path string) (b []byte, t *template, err error) {
	b, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read template %s: %w", path, err)
	}
	t, err = decodeTemplate(b)
	if err != nil {
		return nil, nil, fmt.Errorf("read template %s: %w", path, err)
	}
	return b, t, nil
}

func parseTemplate(data string) (*template, error) {
	t, err := decodeTemplate([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("decode template: %w", err)
	}
	return t, nil
}

// decodeTemplate decodes a template once (model.DecodeJSON: numbers as
// written) and keeps its three sections; each, when present, must be an
// object, as CloudFormation requires (names are matched exactly, as
// CloudFormation matches them).
func decodeTemplate(b []byte) (*template, error) {
	v, err := model.DecodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decode JSON: the template is not a JSON object")
	}
	var t template
	for name, section := range map[string]*map[string]any{"Parameters": &t.Parameters, "Resources": &t.Resources, "Outputs": &t.Outputs} {
		switch s := top[name].(type) {
		case nil:
		case map[string]any:
			*section = s
		default:
			return nil, fmt.Errorf("decode JSON: the template's %s is not a JSON object", name)
		}
	}
	return &t, nil
}

// resource returns a resource's Type, Properties and Metadata, or ok=false
// when the entry is not an object (a language-extension Fn::ForEach, say).
func (t *template) resource(id string) (typ string, props any, meta map[string]any, ok bool) {
	r, ok := t.Resources[id].(map[string]any)
	if !ok {
		return "", nil, nil, false
	}
	typ, _ = r["Type"].(string)
	meta, _ = r["Metadata"].(map[string]any)
	return typ, r["Properties"], meta, true
}

// types maps each resource's logical id to its Type.
func (t *template) types() map[string]string {
	out := make(map[string]string, len(t.Resources))
	for id := range t.Resources {
		if typ, _, _, ok := t.resource(id); ok && typ != "" {
			out[id] = typ
		}
	}
	return out
}

type nestedStack struct {
	logicalID string
	// assetPath is the Metadata "aws:asset:path" ("" when the assembly was
	// synthesized with --asset-metadata=false).
	assetPath string
	// objectKeys are the last path segments of the strings in TemplateURL
	// that end in ".json": the asset's object key, by which the asset
	// manifest names the template file.
	objectKeys []string
}

// nestedStacks lists every AWS::CloudFormation::Stack resource, by logical
// id, with what names its template in the assembly.
func (t *template) nestedStacks() []nestedStack {
	var out []nestedStack
	for _, id := range t.resourceIDs() {
		typ, props, meta, ok := t.resource(id)
		if !ok || typ != "AWS::CloudFormation::Stack" {
			continue
		}
		n := nestedStack{logicalID: id}
		n.assetPath, _ = meta["aws:asset:path"].(string)
		if p, ok := props.(map[string]any); ok {
			n.objectKeys = jsonKeys(p["TemplateURL"], nil)
		}
		out = append(out, n)
	}
	return out
}

// jsonKeys collects the last path segment of every string in v (a literal
// URL or the parts of an Fn::Join / Fn::Sub) that ends in ".json".
func jsonKeys(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		if strings.HasSuffix(x, ".json") {
			out = append(out, x[strings.LastIndexAny(x, "/}")+1:])
		}
	case []any:
		for _, e := range x {
			out = jsonKeys(e, out)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = jsonKeys(x[k], out)
		}
	}
	return out
}

// noEcho reports a NoEcho flag, which templates spell as a bool or a string.
func noEcho(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(x, "true")
	}
	return false
}

// stringify renders a parameter default the way CloudFormation passes it.
func stringify(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, _ := stringify(e)
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), true
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return "", false
		}
		return string(b), true
	}
}
