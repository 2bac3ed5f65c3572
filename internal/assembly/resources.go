package assembly

import (
	"encoding/json"
	"fmt"
)

// Resource is one template resource as written: its type and top-level
// properties, each raw (intrinsics and all).
type Resource struct {
	Type       string                     `json:"Type"`
	Properties map[string]json.RawMessage `json:"Properties"`
}

// ReadResources reads the resources of the stack's template, for what
// needs a resource's values as written (the security table reads a
// created resource's policies and rules). An entry that is no object (a
// language extension) is left out.
func (s Stack) ReadResources() (map[string]Resource, error) {
	if s.TemplateFile == "" {
		return nil, fmt.Errorf("stack %s has no template in the assembly", s.Name)
	}
	var t struct {
		Resources map[string]json.RawMessage `json:"Resources"`
	}
	if err := decodeFile(s.TemplateFile, &t); err != nil {
		return nil, fmt.Errorf("read the resources of %s: %w", s.Name, err)
	}
	out := make(map[string]Resource, len(t.Resources))
	for id, raw := range t.Resources {
		var r Resource
		if json.Unmarshal(raw, &r) == nil {
			out[id] = r
		}
	}
	return out, nil
}
