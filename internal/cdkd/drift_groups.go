package cdkd

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/cdkd-action/cdkd-action/internal/model"
)

// knownDriftKeys are the keys of a stack's drift report this version reads.
var knownDriftKeys = []string{"stack", "region", "drifted", "clean", "notSupported", "skipped", "notCompared"}

// UnmarshalJSON reads the known groups, and keeps every other array of
// resources as a group of its own: the seeds' cdkd reports masked
// positions "in its own group", and dropping a group silently would hide
// what cdkd chose to report. Only names and paths are kept, never values.
func (n *stackDriftJSON) UnmarshalJSON(b []byte) error {
	type plain stackDriftJSON
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(knownDriftKeys, k) {
			continue
		}
		if g, ok := unknownGroup(k, all[k]); ok {
			p.groups = append(p.groups, g)
		}
	}
	*n = stackDriftJSON(p)
	return nil
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
func unknownGroup(name string, raw json.RawMessage) (model.DriftGroup, bool) {
	var entries []groupEntryJSON
	if err := json.Unmarshal(raw, &entries); err != nil {
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
