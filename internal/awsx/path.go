package awsx

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cdkd-action/cdkd-action/internal/dynref"
	"github.com/cdkd-action/cdkd-action/internal/model"
)

// ValueAt returns the value at a dot path ("Tags.0.Value") inside a decoded
// JSON value. A numeric segment indexes a list; "Tags[0].Value" is read the
// same way. A key that itself contains dots is found too (the longest
// matching key wins). The empty path is v itself.
func ValueAt(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	return valueAt(v, splitPath(path))
}

func splitPath(path string) []string {
	path = strings.ReplaceAll(path, "[", ".")
	path = strings.ReplaceAll(path, "]", "")
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

func valueAt(v any, segs []string) (any, bool) {
	if len(segs) == 0 {
		return v, true
	}
	switch n := v.(type) {
	case map[string]any:
		// Longest key first, so "a.b" beats "a" when both exist.
		for j := len(segs); j >= 1; j-- {
			child, ok := n[strings.Join(segs[:j], ".")]
			if !ok {
				continue
			}
			if got, ok := valueAt(child, segs[j:]); ok {
				return got, true
			}
		}
	case []any:
		i, err := strconv.Atoi(segs[0])
		if err != nil || i < 0 || i >= len(n) {
			return nil, false
		}
		return valueAt(n[i], segs[1:])
	}
	return nil, false
}

// Strings returns every string inside a decoded JSON value, depth first,
// object keys in sorted order. Keys are not included: they are names.
func Strings(v any) []string {
	var out []string
	walkStrings(v, func(s string) { out = append(out, s) })
	return out
}

func walkStrings(v any, f func(string)) {
	switch n := v.(type) {
	case string:
		f(n)
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			walkStrings(n[k], f)
		}
	case []any:
		for _, e := range n {
			walkStrings(e, f)
		}
	}
}

// bags returns the resource's recorded property bags: properties,
// observedProperties and attributes.
func (r ResourceState) bags() []map[string]any {
	return []map[string]any{r.Properties, r.ObservedProperties, r.Attributes}
}

// StringsAt returns the distinct strings the state records at path for a
// resource, across properties, observedProperties and attributes; when the
// path names an object or a list, every string under it. Numbers and
// booleans are left out: they are too short to redact by value. It is how a
// NoEcho position becomes the values to redact and mask.
func (s *State) StringsAt(logicalID, path string) []string {
	if s == nil {
		return nil
	}
	res, ok := s.Resources[logicalID]
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, bag := range res.bags() {
		if bag == nil {
			continue
		}
		v, ok := ValueAt(bag, path)
		if !ok {
			continue
		}
		walkStrings(v, func(str string) {
			if !seen[str] {
				seen[str] = true
				out = append(out, str)
			}
		})
	}
	return out
}

// ContainsToken reports whether any string recorded for the resource
// (physical id, properties, observedProperties, attributes) contains substr,
// e.g. "{{resolve:ssm-secure:" to learn that a property was deployed from a
// secret reference.
func (s *State) ContainsToken(logicalID, substr string) bool {
	if s == nil {
		return false
	}
	res, ok := s.Resources[logicalID]
	if !ok {
		return false
	}
	if strings.Contains(res.PhysicalID, substr) {
		return true
	}
	found := false
	for _, bag := range res.bags() {
		walkStrings(bag, func(str string) {
			found = found || strings.Contains(str, substr)
		})
		if found {
			return true
		}
	}
	return false
}

// OutputString returns a stack output that is a JSON string.
func (s *State) OutputString(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	raw, ok := s.Outputs[name]
	if !ok {
		return "", false
	}
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return "", false
	}
	return str, true
}

// TokenSites returns the recorded property values (properties, then
// observedProperties) of a resource that hold a {{resolve:<svc>:...}}
// token, with their dot paths and whether the value is exactly one token.
// cdkd stores the template's intrinsics resolved and dynamic references
// unresolved, so a token a template joins into a longer string is recorded
// inside that string.
func (s *State) TokenSites(logicalID string, svc dynref.Service) []model.TokenSite {
	if s == nil {
		return nil
	}
	res, ok := s.Resources[logicalID]
	if !ok {
		return nil
	}
	prefix := "{{resolve:" + string(svc) + ":"
	var out []model.TokenSite
	for _, bag := range []map[string]any{res.Properties, res.ObservedProperties} {
		walkPaths(bag, "", func(path, str string) {
			if !strings.Contains(str, prefix) {
				return
			}
			ref, whole := dynref.Parse(str)
			out = append(out, model.TokenSite{Path: path, Whole: whole && ref.Service == svc})
		})
	}
	return out
}

// walkPaths calls f with every string inside v and its dot path, object
// keys in sorted order.
func walkPaths(v any, path string, f func(path, str string)) {
	join := func(seg string) string {
		if path == "" {
			return seg
		}
		return path + "." + seg
	}
	switch n := v.(type) {
	case string:
		f(path, n)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(n)) {
			walkPaths(n[k], join(k), f)
		}
	case []any:
		for i, e := range n {
			walkPaths(e, join(strconv.Itoa(i)), f)
		}
	}
}
