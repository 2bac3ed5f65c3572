package cdkd

import (
	"maps"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// unknownGroups keeps every array of resources under a key this version
// does not know (stackDriftJSON.Unknown) as a group of its own: the seeds'
// cdkd reports hidden positions "in its own group", and dropping a group
// silently would hide what cdkd chose to report. Only names and paths are
// kept, never values. Groups come in key order.
func unknownGroups(unknown map[string]jsontext.Value) []model.DriftGroup {
	var out []model.DriftGroup
	for _, k := range slices.Sorted(maps.Keys(unknown)) {
		if g, ok := unknownGroup(k, unknown[k]); ok {
			out = append(out, g)
		}
	}
	return out
}

// groupEntryJSON is what an unknown group's entry is read for: a resource
// and the paths it names (a "path" or a "paths" list, or the paths of its
// "changes"), never a value.
type groupEntryJSON struct {
	LogicalID *string `json:"logicalId"`
	Type      string  `json:"type"`
	Path      string  `json:"path"`
	Paths     []any   `json:"paths"`
	Changes   []struct {
		Path string `json:"path"`
	} `json:"changes"`
}

// unknownGroup reads an array of resources; ok is false for anything else
// (a scalar, an object, an array of non-resources).
func unknownGroup(name string, raw jsontext.Value) (model.DriftGroup, bool) {
	var entries []groupEntryJSON
	if err := unmarshal(raw, &entries); err != nil {
		return model.DriftGroup{}, false
	}
	g := model.DriftGroup{Name: name, Entries: []model.GroupEntry{}}
	for _, e := range entries {
		if e.LogicalID == nil || *e.LogicalID == "" {
			return model.DriftGroup{}, false
		}
		ge := model.GroupEntry{Resource: model.Resource{LogicalID: *e.LogicalID, Type: e.Type}}
		if e.Path != "" {
			ge.Paths = append(ge.Paths, e.Path)
		}
		for _, p := range e.Paths {
			if s, ok := p.(string); ok && s != "" {
				ge.Paths = append(ge.Paths, s)
			}
		}
		for _, c := range e.Changes {
			if c.Path != "" {
				ge.Paths = append(ge.Paths, c.Path)
			}
		}
		g.Entries = append(g.Entries, ge)
	}
	return g, true
}
